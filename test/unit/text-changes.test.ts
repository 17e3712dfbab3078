// compareTexts / diffBlocks: block-level and word-level text diffs of two captures. The thread tests run
// the compiled script: `npx tsc -p tsconfig.json` before these tests.
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHANGES } from '../../src/domain/capture-findings.js';
import type { PageBlock } from '../../src/domain/page-facts.js';
import { MAX_BLOCK_EDITS, MAX_WORD_EDITS, diffBlocks, wordDiff } from '../../src/diff/text/compare.js';
import { compareTexts } from '../../src/diff/text/compare-in-thread.js';

const block = (text: string, i: number, selector = `p:nth-of-type(${i + 1})`): PageBlock => ({
  selector,
  tag: 'p',
  text,
  box: { x: 10, y: 20 + i * 30, width: 300, height: 24 },
});
const page = (...texts: string[]) => texts.map((t, i) => block(t, i));

describe('diffBlocks', () => {
  it('a block whose text changed is one "changed" entry with the word diff, the new box and selector', () => {
    const before = [
      block('Blue kettle', 0, 'h1'),
      block('Price: $24.99', 1, 'div.price'),
      block('In stock', 2, '#stock'),
    ];
    const after = [
      block('Blue kettle', 0, 'h1'),
      { ...block('Price: $19.99', 1, 'div.price'), box: { x: 10, y: 55, width: 320, height: 24 } },
      block('In stock', 2, '#stock'),
    ];
    const { changes, total } = diffBlocks(before, after, []);
    expect(total).toBe(1);
    expect(changes).toEqual([
      {
        kind: 'changed',
        before: 'Price: $24.99',
        after: 'Price: $19.99',
        box: { x: 10, y: 55, width: 320, height: 24 },
        selector: 'div.price',
        words: [{ value: 'Price: $' }, { value: '24', removed: true }, { value: '19', added: true }, { value: '.99' }],
      },
    ]);
  });

  it('an added and a removed paragraph, in reading order; a removed one keeps its old box and selector', () => {
    const before = page('Intro', 'Old news', 'Footer');
    const after = [block('Intro', 0), block('Footer', 1), block('Fresh paragraph', 2, '#fresh')];
    const { changes, total } = diffBlocks(before, after, []);
    expect(total).toBe(2);
    expect(changes).toEqual([
      { kind: 'removed', before: 'Old news', after: null, box: before[1]!.box, selector: 'p:nth-of-type(2)' },
      { kind: 'added', before: null, after: 'Fresh paragraph', box: after[2]!.box, selector: '#fresh' },
    ]);
  });

  it('a block that only moved (another box, another place in the order) is not a text change', () => {
    const before = page('A', 'B', 'C', 'D');
    const after = page('B', 'C', 'A', 'D').map((b) => ({ ...b, box: { ...b.box, x: 400 } }));
    expect(diffBlocks(before, after, [])).toEqual({ changes: [], total: 0 });
  });

  it('identical texts give nothing; blocks with no text (an image without alt) take no part', () => {
    const before = [
      ...page('Same', 'Text'),
      { selector: 'img', tag: 'img', text: '', box: { x: 0, y: 0, width: 5, height: 5 } },
    ];
    expect(diffBlocks(before, page('Same', 'Text'), [])).toEqual({ changes: [], total: 0 });
  });

  it(`keeps ${MAX_TEXT_CHANGES} entries and counts all: 50 at the edge, 60 → 50 + total 60`, () => {
    const many = (n: number, v: string) => Array.from({ length: n }, (_, i) => `Row ${i} ${v}`);
    const at = diffBlocks(page(...many(50, 'old')), page(...many(50, 'new')), []);
    expect(at.total).toBe(50);
    expect(at.changes).toHaveLength(50);
    const justOver = diffBlocks(page(...many(51, 'old')), page(...many(51, 'new')), []);
    expect(justOver.total).toBe(51);
    expect(justOver.changes).toHaveLength(50);
    const over = diffBlocks(page(...many(60, 'old')), page(...many(60, 'new')), []);
    expect(over.total).toBe(60);
    expect(over.changes).toHaveLength(50);
    expect(over.changes.every((c) => c.kind === 'changed' && c.words)).toBe(true);
    expect(over.changes[49]).toMatchObject({ before: 'Row 49 old', after: 'Row 49 new' }); // the first 50 in reading order
  });

  it('ignoreText blanks its matches on both sides before comparing (and in what is shown)', () => {
    const before = page('Updated 2026-11-23 10:00', 'Price: $5', '2026-11-23');
    const after = page('Updated 2026-11-24 09:15', 'Price: $6', '2026-11-24');
    const { changes, total } = diffBlocks(before, after, ['\\d{4}-\\d{2}-\\d{2}', '\\d{2}:\\d{2}']);
    expect(total).toBe(1); // the date-only block is blank on both sides, so it takes no part
    expect(changes[0]).toMatchObject({ kind: 'changed', before: 'Price: $5', after: 'Price: $6' });
    expect(diffBlocks(page('Today is 2026-11-23'), page('Today is 2026-11-24'), ['\\d{4}-\\d{2}-\\d{2}']).total).toBe(
      0,
    );
  });

  it('past MAX_BLOCK_EDITS the block diff gives up, and still finds the blocks that stayed and pairs the rest', () => {
    const n = MAX_BLOCK_EDITS + 50;
    const before = page(...Array.from({ length: n }, (_, i) => (i % 2 ? `kept ${i}` : `old ${i}`)));
    const after = page(...Array.from({ length: n }, (_, i) => (i % 2 ? `kept ${i}` : `new ${i}`)));
    const { changes, total } = diffBlocks(before, after, []);
    expect(total).toBe(Math.ceil(n / 2));
    expect(changes[0]).toMatchObject({ kind: 'changed', before: 'old 0', after: 'new 0' });
    expect(changes.every((c) => c.kind === 'changed' && c.before!.replace('old', 'new') === c.after)).toBe(true);
  });

  it(`a word diff past ${MAX_WORD_EDITS} words inserted plus deleted is the whole text removed and the whole text added`, () => {
    const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
    // 50 words replaced: 100 edits, at the limit, still a word diff (unchanged words kept).
    const at = wordDiff(`keep ${words('a', 50)} end`, `keep ${words('b', 50)} end`);
    expect(at[0]).toEqual({ value: 'keep ' });
    expect(at.at(-1)).toEqual({ value: ' end' });
    // 51 replaced: 102 edits, over it.
    const before = `keep ${words('a', 51)} end`;
    const after = `keep ${words('b', 51)} end`;
    expect(wordDiff(before, after)).toEqual([
      { value: before, removed: true },
      { value: after, added: true },
    ]);
  });

  it('malformed stored blocks (an old or damaged file) are skipped, not trusted', () => {
    const junk = [
      null,
      5,
      { text: 7 },
      { text: 'ok', box: { x: 'a' } },
      { text: 'Good', box: { x: 1, y: 2, width: 3, height: 4 }, selector: 'p' },
    ] as unknown as PageBlock[];
    const { changes } = diffBlocks(junk, [], []);
    expect(changes).toEqual([
      { kind: 'removed', before: 'ok', after: null, box: null, selector: null },
      { kind: 'removed', before: 'Good', after: null, box: { x: 1, y: 2, width: 3, height: 4 }, selector: 'p' },
    ]);
    expect(diffBlocks('nope' as unknown as PageBlock[], [], [])).toEqual({ changes: [], total: 0 });
  });
});

describe('compareTexts (its own thread)', () => {
  it('gives the same answer as diffBlocks', async () => {
    const before = page('Price: $24.99', 'Gone');
    const after = page('Price: $19.99');
    expect(await compareTexts(before, after, { ignoreText: [] })).toEqual(diffBlocks(before, after, []));
  });

  it('the worst case the limits allow (2 × 2,000 unrelated blocks, 200,000 characters each side) finishes', async () => {
    const words = (seed: number) =>
      Array.from({ length: 16 }, (_, k) => `w${(seed * 7919 + k * 104729) % 100000}`)
        .join(' ')
        .slice(0, 100);
    const before = Array.from({ length: 2000 }, (_, i) => block(words(i), i));
    const after = Array.from({ length: 2000 }, (_, i) => block(words(i + 50_000), i));
    const result = await compareTexts(before, after, { ignoreText: ['\\d{4}-\\d{2}-\\d{2}'] });
    expect(result.total).toBe(2000);
    expect(result.changes).toHaveLength(MAX_TEXT_CHANGES);
  });

  it('a pattern that backtracks without end on V8 ("(a|aa)*b") runs in linear time on RE2', async () => {
    const before = page('a'.repeat(100_000));
    const after = page('a'.repeat(100_001));
    const started = performance.now();
    const result = await compareTexts(before, after, { ignoreText: ['(a|aa)*b', '(?:a?|b?){27}\\b'] });
    expect(result.total).toBe(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('the time limit stays as a backstop: a comparison running past it is stopped', async () => {
    const before = Array.from({ length: 2000 }, (_, i) => block(`before ${i}`, i));
    const after = Array.from({ length: 2000 }, (_, i) => block(`after ${i}`, i));
    await expect(compareTexts(before, after, { ignoreText: [], timeLimitMs: 1 })).rejects.toThrow(
      /comparing the page's text took longer than 0.001 s and was stopped; a diff.ignoreText pattern may be too slow/,
    );
  });

  it('a stored pattern RE2 cannot compile fails the comparison naming its index and the fix', async () => {
    const err = await compareTexts(page('a'), page('a'), { ignoreText: ['\\d+', '\\d+(?= visitors)'] }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'render_failed',
      message: expect.stringMatching(
        /^diff\.ignoreText\[1\] uses a lookahead "\(\?=", which RE2 does not support\. .*PATCH the monitor/,
      ) as unknown,
    });
  });
});
