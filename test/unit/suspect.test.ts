// The signals of a failed fetch (src/monitors/suspect.ts), each at its threshold and just past it.
import { describe, expect, it } from 'vitest';
import type { PageBlock, PageFacts, PageSigns } from '../../src/domain/page-facts.js';
import type { PageSpec } from '../../src/domain/render-spec.js';
import {
  CHALLENGE_MAX_TEXT,
  COLLAPSE_MIN_BASELINE_TEXT,
  EMPTY_PAGE_MIN_TEXT,
  suspicionOf,
  type SuspectInput,
} from '../../src/monitors/suspect.js';

const PAGE = 'A long article about walking boots, their soles, laces and care. '.repeat(40); // 2,600 characters

function signs(o: Partial<PageSigns> = {}): PageSigns {
  const text = o.text ?? PAGE;
  return {
    title: 'Boots',
    text,
    textLength: text.length,
    media: 1,
    challenges: [],
    passwordField: false,
    drawn: true,
    ...o,
  };
}
const block = (text: string): PageBlock => ({
  selector: 'p',
  tag: 'p',
  text,
  box: { x: 0, y: 0, width: 10, height: 10 },
});
const spec = { url: 'http://127.0.0.1/' } as PageSpec;

function judge(o: { signs?: PageSigns; status?: number; blocks?: PageBlock[] } & Partial<SuspectInput> = {}) {
  const facts: PageFacts = {
    blocks: o.blocks ?? [block(PAGE)],
    probes: [],
    signs: o.signs ?? signs(),
    ...(o.status !== undefined && { status: o.status }),
  };
  return suspicionOf({ facts, spec: o.spec ?? spec, signsIn: o.signsIn ?? false, baselineBlocks: o.baselineBlocks });
}

describe('bot_check on a 2xx page', () => {
  it('a short page with a challenge phrase in its title is a bot check (Cloudflare "Just a moment…")', () => {
    const s = signs({ title: 'Just a moment…', text: 'example.com needs to review the security of your connection.' });
    expect(judge({ signs: s })).toEqual({
      code: 'bot_check',
      message: 'the page is a bot check ("just a moment..."), not the page itself',
    });
  });

  it('a widget is named: reCAPTCHA on a short page', () => {
    expect(judge({ signs: signs({ text: 'Please confirm to continue.', challenges: ['reCAPTCHA'] }) })?.message).toBe(
      'the page is a bot check (reCAPTCHA), not the page itself',
    );
  });

  it('curly apostrophes read as straight ones', () => {
    expect(judge({ signs: signs({ text: 'I’m not a robot' }) })?.code).toBe('bot_check');
  });

  it(`a marker counts on a page of ${CHALLENGE_MAX_TEXT} characters, not on one of ${CHALLENGE_MAX_TEXT + 1}`, () => {
    const at = 'Access denied. ' + 'x'.repeat(CHALLENGE_MAX_TEXT - 15);
    expect(at).toHaveLength(CHALLENGE_MAX_TEXT);
    expect(judge({ signs: signs({ text: at }) })?.code).toBe('bot_check');
    expect(judge({ signs: signs({ text: at + 'x' }) })).toBeNull();
    // A widget too: a long page with a captcha on its comment form is the page.
    expect(judge({ signs: signs({ challenges: ['reCAPTCHA'], textLength: CHALLENGE_MAX_TEXT + 1 }) })).toBeNull();
  });

  it('a page that only mentions captchas is not one', () => {
    expect(
      judge({ signs: signs({ text: 'Our forms are protected by reCAPTCHA and the captcha is easy.' }) }),
    ).toBeNull();
  });
});

describe('bot_check on a 403/429/503 the monitor would fail', () => {
  it('a marker makes it suspect, however long the page', () => {
    const s = signs({ text: 'We have detected unusual traffic from your network. ' + 'x'.repeat(3000) });
    expect(judge({ status: 429, signs: s })).toEqual({
      code: 'bot_check',
      message: 'the site answered HTTP 429 with a bot check ("unusual traffic")',
    });
  });

  it('without a marker it fails the capture as before', () => {
    expect(() => judge({ status: 503, signs: signs({ text: 'Service unavailable' }) })).toThrow(
      'The page answered HTTP 503: check the URL, or set failOnHttpError: false to render it anyway.',
    );
  });

  it('a status the rules let through is judged like a 2xx page', () => {
    const lenient = { ...spec, failOnHttpError: false };
    expect(judge({ status: 403, spec: lenient })).toBeNull();
    expect(judge({ status: 403, spec: lenient, signs: signs({ text: 'Access denied' }) })?.code).toBe('bot_check');
    // failOnHttpStatusCodes without 429: the 429 is the page.
    expect(judge({ status: 429, spec: { ...spec, failOnHttpStatusCodes: [500] } })).toBeNull();
  });
});

describe('empty_page', () => {
  const short = 'x'.repeat(EMPTY_PAGE_MIN_TEXT - 1);
  it(`fewer than ${EMPTY_PAGE_MIN_TEXT} characters, no picture or field and nothing drawn is empty`, () => {
    expect(judge({ signs: signs({ text: short, media: 0, drawn: false }) })).toEqual({
      code: 'empty_page',
      message: `the page is empty: ${EMPTY_PAGE_MIN_TEXT - 1} characters of text, no pictures or fields, nothing drawn`,
    });
    expect(judge({ signs: signs({ text: '', media: 0, drawn: false }) })?.code).toBe('empty_page');
  });
  it(`${EMPTY_PAGE_MIN_TEXT} characters, or one picture, or one drawn box, is not`, () => {
    expect(judge({ signs: signs({ text: short + 'x', media: 0, drawn: false }) })).toBeNull();
    expect(judge({ signs: signs({ text: '', media: 1, drawn: false }) })).toBeNull();
    expect(judge({ signs: signs({ text: '', media: 0, drawn: true }) })).toBeNull();
  });
});

describe('login_page', () => {
  const login = signs({ text: 'Sign in to your account. Email Password Forgot your password?', passwordField: true });
  it('a visible password field after steps that type a secret', () => {
    expect(judge({ signs: login, signsIn: true })?.code).toBe('login_page');
  });
  it('not without a secret step, nor without a visible password field', () => {
    expect(judge({ signs: login, signsIn: false })).toBeNull();
    expect(judge({ signs: { ...login, passwordField: false }, signsIn: true })).toBeNull();
  });
});

describe('text_collapsed', () => {
  const baselineBlocks = [block('x'.repeat(COLLAPSE_MIN_BASELINE_TEXT))];
  it('under 10% of a baseline of at least 500 characters', () => {
    expect(judge({ baselineBlocks, blocks: [block('y'.repeat(49))] })).toEqual({
      code: 'text_collapsed',
      message: 'the text shrank to 49 characters from 500 in the last good capture (under 10%)',
    });
  });
  it('not at 10%, nor against a baseline of 499 characters, nor without a baseline', () => {
    expect(judge({ baselineBlocks, blocks: [block('y'.repeat(50))] })).toBeNull();
    expect(judge({ baselineBlocks: [block('x'.repeat(499))], blocks: [block('y')] })).toBeNull();
    expect(judge({ blocks: [block('y')] })).toBeNull();
  });
  it('counts every block', () => {
    expect(judge({ baselineBlocks: [block('x'.repeat(250)), block('x'.repeat(250))], blocks: [] })?.code).toBe(
      'text_collapsed',
    );
  });
});

describe('order', () => {
  it('a bot check is named before an empty page or a collapse', () => {
    const s = signs({ title: 'Attention Required! | Cloudflare', text: '', media: 0, drawn: false });
    expect(judge({ signs: s, blocks: [], baselineBlocks: [block(PAGE)] })?.code).toBe('bot_check');
  });
});
