// The dashboard's side of issue 27 (monitors that watch anything), in a real browser against the running
// service, at a laptop's and a phone's width: filters edited as ordered rows (moved with Up / Down from
// the keyboard) and saved in that order, their problems beside their row; the request's method, body and
// body type under "Show every option", counted in the "Set (N)" line; the visual picker filling a filter
// and the price selector from the latest capture (a click on it, and the keyboard's list); the capture's
// "Compared text" panel. Each state is audited with axe.
//
// PENDING tests (they skip themselves, saying so, while the API refuses or does not yet produce what they
// need; they run as they are once the other pieces of issue 27 are merged): the rule shapes (regex tests,
// price tests, `while`, any-groups), ignoreText {pattern, flags}, and the capture facts (content kind,
// price and availability, suspect and filter_missing captures).
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { captureNow } from '../helpers/capture-now.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

type Json = Record<string, unknown>;
/** The dashboard's own modules, imported in the page by the test of their words. */
const MODULES = { verdict: '/assets/monitors-viewer/verdict.js', content: '/assets/monitors-viewer/content.js' };
interface VerdictModule {
  verdictOf(c: object, m: object): { kind: string; sentences: string[]; edit: boolean };
  listWords(c: object, kind: string): string | null;
}
interface ContentModule {
  contentFacts(c: object, m: object): string[][];
}
interface Block {
  selector: string;
  tag: string;
  text: string;
  box: { x: number; y: number; width: number; height: number };
}

let svc: TestService;
let fx: FixtureServer;
let browser: Browser;
const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at
/** What the API takes today: probed once, so the pending tests know whether they can run. */
const api = { rules: false, ignoreTextObjects: false, productFacts: false };

const shopHtml = `<!doctype html><html><head><meta charset="utf-8"><title>Kettle</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Blue kettle",
"offers": {"@type": "Offer", "price": "24.99", "priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}</script>
<style>body { margin: 0; font: 28px sans-serif; background: #fff; color: #111; } h1, p { margin: 40px; }</style></head>
<body><h1>Blue kettle</h1><p class="price">Price: 24.99 EUR</p><p class="stock">In stock</p>
<div class="offer" style="margin: 40px; padding: 20px 20px 40px; border: 1px solid #999">Offer of the week
<p class="deal" style="margin: 10px 0 0">Deal: 19.99 EUR</p></div></body></html>`;

beforeAll(async () => {
  [svc, fx] = await Promise.all([
    startTestService({
      jobs: { pollIntervalMs: 100 },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    }),
    startFixtureServer(),
  ]);
  fx.route('/shop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopHtml);
  });
  // A bot check as challenge pages serve them: 503 with a "checking your browser" page.
  fx.route('/challenge', (_req, res) => {
    res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cf-mitigated': 'challenge' });
    res.end(`<!doctype html><title>Just a moment...</title><h1>Checking your browser before accessing the site</h1>
<p>Please complete the captcha to continue.</p><div class="g-recaptcha" data-sitekey="x"></div>`);
  });
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
  if (shots) mkdirSync(shots, { recursive: true });
  const probe = svc.createKey('probe').key;
  const accepts = async (extra: Json) =>
    (
      await svc.call('POST', '/api/monitors', probe, {
        url: `${fx.url}/shop`,
        schedule: '0 0 1 1 *',
        paused: true,
        ...extra,
      })
    ).status === 201;
  api.rules = await accepts({ notifyWhen: [{ any: [{ priceBelow: 5, while: true }, { outOfStock: true }] }] });
  api.ignoreTextObjects = await accepts({ diff: { ignoreText: [{ pattern: 'x', flags: '' }] } });
  const res = await svc.call('POST', '/api/monitors', probe, {
    url: `${fx.url}/shop`,
    schedule: '0 0 1 1 *',
    paused: true,
  });
  const capture = (await captureNow(svc, probe, ((await res.json()) as { id: string }).id)) as unknown as Json;
  api.productFacts = capture.price === 24.99 && capture.content !== undefined;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([svc?.close(), fx?.close()]);
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (name, viewport) => {
  let context: BrowserContext;
  let page: Page;
  let key: string;
  const problems: string[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await svc.call(method, path, key, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as Json;
  };
  const create = async (body: Json) =>
    (await call('POST', '/api/monitors', { schedule: '0 0 1 1 *', paused: true, ...body })) as { id: string } & Json;
  const shot = async (what: string, part: string) => {
    if (shots)
      await page
        .locator(part)
        .first()
        .screenshot({ path: `${shots}/anything-${what}-${viewport.width}.png` });
  };
  const noViolations = async (what: string) => expect(await violations(page), what).toEqual([]);
  const row = (monitorName: string) => page.locator('#monitor-rows tr', { hasText: monitorName });
  const focused = () => page.evaluate(() => document.activeElement?.id ?? '');

  async function openDashboard() {
    await page.goto(`${svc.url}/monitors`);
    await until('the list', async () => (await page.locator('#monitor-rows tr').count()) > 0, 15_000);
  }
  async function edit(monitorName: string) {
    await row(monitorName)
      .getByRole('button', { name: `Edit ${monitorName}` })
      .click();
    await until('the form filled', async () => (await page.locator('#form-submit').textContent()) === 'Save changes');
  }
  async function save() {
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until('the form to close after saving', async () => !(await page.locator('#form-section').isVisible()));
  }
  const filterRow = (i: number) => page.locator(`#f-filters-list > li:nth-child(${i})`);

  beforeAll(async () => {
    key = svc.createKey(`anything-${name}`).key;
    context = await browser.newContext({ viewport, bypassCSP: true });
    await context.addInitScript((k) => localStorage.setItem('pagewatch.apiKey', k), key);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
  });
  afterAll(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  it('edits filters as ordered rows: Up / Down from the keyboard, no value for the line kinds, saved in order', async () => {
    const made = await create({ name: `Filtered ${name}`, url: `${fx.url}/shop` });
    await openDashboard();
    await edit(`Filtered ${name}`);
    for (const [kind, value, flags] of [
      ['css', 'main', ''],
      ['extract', '\\d+\\.\\d{2}', 'i'],
      ['unique', '', ''],
    ] as const) {
      await page.getByRole('button', { name: 'Add filter' }).click();
      // Add puts the focus in the new row (its kind).
      expect(await focused()).toMatch(/^f-filter-\d+-kind$/);
      const last = page.locator('#f-filters-list > li:last-child');
      await last.locator('select.kind').selectOption(kind);
      if (value) await last.locator('input.value').fill(value);
      if (flags) await last.locator('input.flags').fill(flags);
    }
    // A line kind takes no value; flags are for extract only.
    expect(await filterRow(3).locator('input.value').isDisabled()).toBe(true);
    expect(await filterRow(1).locator('input.flags').isDisabled()).toBe(true);
    expect(await filterRow(2).locator('input.flags').isDisabled()).toBe(false);
    // Unique lines moves up one place with the keyboard: the focus stays on the moved row's button.
    await filterRow(3).getByRole('button', { name: 'Up move filter 3 up' }).focus();
    await page.keyboard.press('Enter');
    expect(await filterRow(2).locator('select.kind').inputValue()).toBe('unique');
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('select')?.value)).toBe(
      'unique',
    );
    expect(await filterRow(1).locator('button.up').isDisabled()).toBe(true);
    expect(await filterRow(3).locator('button.down').isDisabled()).toBe(true);
    await page.locator('#f-filtermissing').fill('5');
    await noViolations('the filters edited');
    await shot('filters', '#f-filters-group');
    await save();
    const saved = (await call('GET', `/api/monitors/${made.id}`)) as { diff: Json };
    expect(saved.diff.filters).toEqual([{ css: 'main' }, { unique: true }, { extract: '\\d+\\.\\d{2}', flags: 'i' }]);
    expect(saved.diff.filterMissingAfter).toBe(5);

    // The API's problems land on their row: a broken regular expression on filter 3's value, and 101 runs.
    await edit(`Filtered ${name}`);
    expect(await filterRow(2).locator('select.kind').inputValue()).toBe('unique');
    await filterRow(3).locator('input.value').fill('(unclosed');
    await page.locator('#f-filtermissing').fill('101');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const value3 = filterRow(3).locator('input.value');
    await until('the filter error', async () => (await value3.getAttribute('aria-invalid')) === 'true');
    const errorId = (await value3.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${errorId}`).textContent()).toMatch(/\S/);
    expect(await page.locator('#f-filtermissing').getAttribute('aria-invalid')).toBe('true');
    // The first problem in the form's order takes the focus: filter 3's value comes before the count.
    expect(await focused()).toBe(await value3.getAttribute('id'));
    await noViolations('filter errors');
    await shot('filter-errors', '#f-filters-group');
    // An emptied value is named by the page before anything is sent.
    await filterRow(1).locator('input.value').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until(
      'the empty filter named',
      async () => (await filterRow(1).locator('input.value').getAttribute('aria-invalid')) === 'true',
    );
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('sets the request method, body and body type under Show every option, counted in the Set line', async () => {
    const made = await create({ name: `Posted ${name}`, url: `${fx.url}/shop` });
    await openDashboard();
    await edit(`Posted ${name}`);
    expect(await page.locator('#f-advanced-summary').textContent()).toBe('None set: the defaults apply.');
    await page.locator('#f-advanced-toggle').click();
    // A GET sends no body: the box is disabled until the method takes one.
    expect(await page.locator('#f-a-body').isDisabled()).toBe(true);
    await page.locator('#f-a-method').selectOption('POST');
    await page.locator('#f-a-body').fill('{"query": "kettle"}');
    await page.locator('#f-a-ctype').fill('application/json');
    expect(await page.locator('#f-advanced-summary').textContent()).toBe(
      'Set (3): POST request, a request body, body type application/json.',
    );
    await noViolations('the request fields');
    await shot('request', '#f-advanced fieldset:has(#f-a-method)');
    await save();
    const saved = (await call('GET', `/api/monitors/${made.id}`)) as { capture: Json };
    expect(saved.capture).toMatchObject({ method: 'POST', bodyContentType: 'application/json' });
    expect(['{"query": "kettle"}', '••••']).toContain(saved.capture.body);

    // Back to GET: the body goes with it.
    await edit(`Posted ${name}`);
    expect(await page.locator('#f-advanced').getAttribute('open')).not.toBeNull();
    expect(await page.locator('#f-a-method').inputValue()).toBe('POST');
    await page.locator('#f-a-method').selectOption('GET');
    await page.locator('#f-a-ctype').fill('');
    await save();
    const back = (await call('GET', `/api/monitors/${made.id}`)) as { capture: Json };
    expect(back.capture.method).toBe('GET');
    expect(back.capture.body).toBeUndefined();
  });

  it('picks elements on the latest capture: a click fills a filter, the keyboard list the price selector', async () => {
    const made = await create({ name: `Picked ${name}`, url: `${fx.url}/shop` });
    const capture = await captureNow(svc, key, made.id);
    expect(capture.status).toBe('succeeded');
    const { blocks } = (await call('GET', `/api/captures/${capture.id}/text`)) as unknown as { blocks: Block[] };
    // The deal's block lies inside the offer's (which has text of its own): a click on the deal picks
    // the smallest block under the pointer, the deal.
    const price = blocks.find((b) => b.text.startsWith('Deal'))!;
    const offer = blocks.find((b) => b.text.startsWith('Offer'))!;
    expect(price).toBeDefined();
    expect(offer.box.y).toBeLessThan(price.box.y);
    expect(offer.box.y + offer.box.height).toBeGreaterThan(price.box.y + price.box.height);
    await openDashboard();
    await edit(`Picked ${name}`);
    await page.getByRole('button', { name: 'Add filter' }).click();
    const pick = filterRow(1).getByRole('button', { name: 'Pick filter 1 on the latest capture' });
    await pick.waitFor();
    await pick.click();
    expect(await focused()).toBe('f-pick-title');
    const img = page.locator('#f-pick-img');
    await until('the capture to pick on', () =>
      img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0),
    );
    await img.scrollIntoViewIfNeeded();
    // A click in the middle of the price's box, scaled from capture pixels to the image as laid out.
    const laid = (await img.boundingBox())!;
    const scale = laid.width / capture.width!;
    await page.mouse.click(
      laid.x + (price.box.x + price.box.width / 2) * scale,
      laid.y + (price.box.y + price.box.height / 2) * scale,
    );
    expect(await filterRow(1).locator('input.value').inputValue()).toBe(price.selector);
    expect(await page.locator('#f-pick-note').textContent()).toContain(`Picked ${price.selector}`);
    // The picked block is outlined where it is on the image.
    const outline = (await page.locator('#f-pick-box').boundingBox())!;
    expect(Math.abs(outline.x - (laid.x + price.box.x * scale))).toBeLessThanOrEqual(2);
    expect(Math.abs(outline.width - price.box.width * scale)).toBeLessThanOrEqual(2);
    await noViolations('the picker open');
    await shot('picker', '#f-picker');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await focused()).toMatch(/^f-filter-\d+-value$/);

    // The keyboard way: Pick beside the price element, then the list.
    await page.getByRole('button', { name: 'Pick the price element on the latest capture' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#f-pick-list').focus();
    await page.locator('#f-pick-list').selectOption(String(blocks.indexOf(price)));
    await page.getByRole('button', { name: 'Use this element' }).click();
    expect(await page.locator('#f-priceselector').inputValue()).toBe(price.selector);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await focused()).toBe('f-priceselector');

    // A rule's element, picked from the list too.
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('#f-rules-list > li:last-child input.value').fill('Deal');
    await page.getByRole('button', { name: 'Pick the element of rule 1 on the latest capture' }).click();
    await page.locator('#f-pick-list').selectOption(String(blocks.indexOf(offer)));
    await page.getByRole('button', { name: 'Use this element' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await focused()).toMatch(/^f-rule-\d+-selector$/);
    await save();
    const saved = (await call('GET', `/api/monitors/${made.id}`)) as { diff: Json; notifyWhen: Json[] };
    expect(saved.diff.filters).toEqual([{ css: price.selector }]);
    expect(saved.diff.priceSelector).toBe(price.selector);
    expect(saved.notifyWhen).toEqual([{ selector: offer.selector, textContains: 'Deal' }]);
  });

  it('shows the compared text of a capture, block by block, after the filters', async () => {
    const made = await create({ name: `Compared ${name}`, url: `${fx.url}/shop`, diff: { filters: [{ css: 'h1' }] } });
    const capture = await captureNow(svc, key, made.id);
    const { blocks } = (await call('GET', `/api/captures/${capture.id}/text`)) as unknown as { blocks: Block[] };
    await openDashboard();
    await row(`Compared ${name}`)
      .getByRole('button', { name: `History of Compared ${name}` })
      .click();
    const items = page.locator('#compared-blocks li');
    await until('the compared text', async () => (await items.count()) > 0, 15_000);
    expect(await items.count()).toBe(blocks.length);
    expect(((await items.first().textContent()) ?? '').replace(/\s+/g, ' ')).toContain(blocks[0]!.text);
    expect(await items.first().locator('code').textContent()).toBe(blocks[0]!.selector);
    await noViolations('the compared text panel');
    await shot('compared-text', '#viewer');
  });

  it('sends the agreed rule and ignoreText shapes (seen on the wire, whatever the API answers today)', async () => {
    const made = await create({ name: `Wire ${name}`, url: `${fx.url}/shop` });
    await openDashboard();
    await edit(`Wire ${name}`);
    await page.locator('#f-rules-when').selectOption('any');
    const rule = (i: number) => page.locator(`#f-rules-list > li:nth-child(${i})`);
    for (const [test, selector, value] of [
      ['textNotMatches', '.stock', 'sold\\s+out'],
      ['priceBelow', '', '20,5'],
      ['priceOutside', '', '10'],
      ['priceRisesBy', '', '5'],
      ['outOfStock', '', ''],
    ] as const) {
      await page.getByRole('button', { name: 'Add rule' }).click();
      const last = page.locator('#f-rules-list > li:last-child');
      await last.locator('select.test').selectOption(test);
      if (selector) await last.locator('input.selector').fill(selector);
      if (value) await last.locator('input.value').fill(value);
    }
    // Price and stock tests take no element; an empty "To" is named before anything is sent.
    expect(await rule(2).locator('input.selector').isDisabled()).toBe(true);
    expect(await rule(5).locator('input.value').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until(
      'the empty bound named',
      async () => (await rule(3).locator('input.max').getAttribute('aria-invalid')) === 'true',
    );
    expect(await focused()).toBe(await rule(3).locator('input.max').getAttribute('id'));
    await rule(3).locator('input.max').fill('30');
    await rule(1).locator('input.match-case').check();
    await rule(5).locator('input.while').check();
    await page.getByRole('button', { name: 'Add pattern' }).click();
    await page.locator('#f-ignoretext-list > li:last-child input.pattern').fill('\\d+ left');
    await page.getByRole('button', { name: 'Add pattern' }).click();
    await page.locator('#f-ignoretext-list > li:last-child input.pattern').fill('SALE');
    await page.locator('#f-ignoretext-list > li:last-child input.match-case').check();
    await shot('rules', '#f-rules-group');
    const sent = page.waitForRequest(
      (req) => req.method() === 'PATCH' && req.url().endsWith(`/api/monitors/${made.id}`),
    );
    await page.getByRole('button', { name: 'Save changes' }).click();
    const body = (await sent).postDataJSON() as { notifyWhen: Json[]; diff: Json };
    expect(body.notifyWhen).toEqual([
      {
        any: [
          { selector: '.stock', textNotMatches: 'sold\\s+out', flags: '' },
          { priceBelow: 20.5 },
          { priceOutside: [10, 30] },
          { priceRisesBy: { percent: 5 } },
          { outOfStock: true, while: true },
        ],
      },
    ]);
    expect(body.diff.ignoreText).toEqual(['\\d+ left', { pattern: 'SALE', flags: '' }]);
    if (!api.rules) {
      // Today's API refuses the new shapes; its problems land in the group's rows (notifyWhen.0.any.N → rule N+1).
      await until(
        'the API answer',
        async () => (await page.locator('#monitor-form [aria-invalid="true"]').count()) > 0,
      );
      await page.getByRole('button', { name: 'Cancel' }).click();
    } else await until('saved', async () => !(await page.locator('#form-section').isVisible()));
  });

  it("words a capture's verdict and facts for the new kinds (the viewer's own functions, in the page)", async () => {
    await page.goto(`${svc.url}/monitors`);
    // A module script of the page's own (vitest would rewrite an import() written in the test).
    await page.addScriptTag({
      type: 'module',
      content: `import * as verdict from '${MODULES.verdict}'; import * as content from '${MODULES.content}';
        window.dashboardModules = { verdict, content };`,
    });
    await until('the modules', () => page.evaluate(() => 'dashboardModules' in window));
    const words = await page.evaluate(() => {
      const { verdict, content } = (
        window as unknown as { dashboardModules: { verdict: VerdictModule; content: ContentModule } }
      ).dashboardModules;
      const base = { id: 'cap_x', takenAt: new Date().toISOString(), baselineId: null, changed: false, regions: [] };
      const suspect = verdict.verdictOf(
        { ...base, status: 'suspect', error: { code: 'bot_check', message: 'looks like a bot check.' } },
        { diff: {} },
      );
      const missing = verdict.verdictOf(
        { ...base, status: 'filter_missing', error: { code: 'filter_missing', message: 'no element matched .price' } },
        { diff: { filterMissingAfter: 5 } },
      );
      const facts = (c: object, m: object = { diff: {} }) =>
        content.contentFacts({ ...base, status: 'succeeded', ...c }, m).map((pair) => pair.join(': '));
      return {
        suspect: [suspect.kind, suspect.sentences[0], verdict.listWords(base, suspect.kind)],
        missing: [missing.kind, missing.sentences.join(' '), missing.edit],
        pdf: facts({ content: { kind: 'pdf', mediaType: 'application/pdf', bytes: 48213, pages: 12, pagesRead: 12 } }),
        cut: facts({
          content: {
            kind: 'pdf',
            mediaType: 'application/pdf',
            bytes: 9,
            pages: 80,
            pagesRead: 50,
            cut: 'the first 50 pages',
          },
        }),
        json: facts({ content: { kind: 'json', mediaType: 'application/json', bytes: 912 } }),
        text: facts({ content: { kind: 'text', mediaType: 'text/plain', bytes: 5 } }),
        binary: facts({ content: { kind: 'binary', mediaType: 'application/octet-stream', bytes: 3, sha256: 'ab12' } }),
        product: facts({ price: 24.99, currency: 'EUR', availability: 'InStock', priceSource: 'json-ld' }),
        selector: facts(
          { price: 5, currency: null, availability: 'OutOfStock', priceSource: 'selector' },
          { diff: { priceSelector: '.price' } },
        ),
        euro: new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(24.99),
      };
    });
    expect(words.suspect).toEqual([
      'suspect',
      'Suspect: looks like a bot check — not compared, not a change.',
      'not compared',
    ]);
    expect(words.missing[0]).toBe('filter_missing');
    expect(words.missing[1]).toContain(
      'The filter stopped matching: no element matched .price — not compared, not a change.',
    );
    expect(words.missing[1]).toContain('After 5 such captures in a row');
    expect(words.missing[2]).toBe(true);
    expect(words.pdf).toEqual(['Content: PDF, 12 pages (read 12), 48,213 bytes']);
    expect(words.cut).toEqual([
      'Content: PDF, 80 pages (read 50), 9 bytes',
      'Cut: Only part was read: the first 50 pages',
    ]);
    expect(words.json).toEqual(['Content: JSON (application/json), 912 bytes']);
    expect(words.text).toEqual(['Content: Text (text/plain), 5 bytes']);
    expect(words.binary).toEqual(['Content: Bytes: SHA-256 ab12 (application/octet-stream), 3 bytes']);
    expect(words.product).toEqual([`Product: ${words.euro} · In stock, read from the page’s JSON-LD (schema.org)`]);
    expect(words.selector).toEqual(['Product: 5 · Out of stock, read from the page’s elements (.price)']);
  });

  it('PENDING the rules piece: rules with regex, price tests, while and any, saved to the agreed shapes', async (ctx) => {
    if (!api.rules) ctx.skip(); // the API refuses the new rule shapes until the rules piece is merged
    const made = await create({ name: `Rules ${name}`, url: `${fx.url}/shop` });
    await openDashboard();
    await edit(`Rules ${name}`);
    await page.locator('#f-rules-when').selectOption('any');
    const rules = [
      ['textMatches', '.price', 'in\\s+stock'],
      ['priceOutside', '', '10'],
      ['priceDropsBy', '', '5'],
      ['backInStock', '', ''],
    ] as const;
    for (const [test, selector, value] of rules) {
      await page.getByRole('button', { name: 'Add rule' }).click();
      const last = page.locator('#f-rules-list > li:last-child');
      await last.locator('select.test').selectOption(test);
      if (selector) await last.locator('input.selector').fill(selector);
      if (value) await last.locator('input.value').fill(value);
    }
    const rule = (i: number) => page.locator(`#f-rules-list > li:nth-child(${i})`);
    // Price tests read the capture's price: no element.
    expect(await rule(2).locator('input.selector').isDisabled()).toBe(true);
    expect(await rule(4).locator('input.value').isDisabled()).toBe(true);
    await rule(1).locator('input.match-case').check();
    await rule(2).locator('input.max').fill('30');
    await rule(3).locator('select.unit').selectOption('amount');
    await rule(4).locator('input.while').check();
    await noViolations('the rules');
    await shot('rules', '#f-rules-group');
    await save();
    const saved = (await call('GET', `/api/monitors/${made.id}`)) as { notifyWhen: Json[] };
    expect(saved.notifyWhen).toEqual([
      {
        any: [
          { selector: '.price', textMatches: 'in\\s+stock', flags: '' },
          { priceOutside: [10, 30] },
          { priceDropsBy: { amount: 5 } },
          { backInStock: true, while: true },
        ],
      },
    ]);
    // Shown again as saved; a nested structure the form cannot show is kept, and the form says so.
    await edit(`Rules ${name}`);
    expect(await page.locator('#f-rules-when').inputValue()).toBe('any');
    expect(await rule(3).locator('select.unit').inputValue()).toBe('amount');
    await page.getByRole('button', { name: 'Cancel' }).click();
    const nested = [{ all: [{ any: [{ priceBelow: 5 }, { outOfStock: true }] }, { selector: 'h1', appears: true }] }];
    await call('PATCH', `/api/monitors/${made.id}`, { notifyWhen: nested });
    await openDashboard();
    await edit(`Rules ${name}`);
    expect(await page.locator('#f-rules-locked').textContent()).toContain('edit them through the API');
    await save();
    expect(((await call('GET', `/api/monitors/${made.id}`)) as { notifyWhen: Json[] }).notifyWhen).toEqual(nested);
  });

  it('PENDING the ignoreText piece: Match case sends {pattern, flags: ""}; unchecked stays a plain string', async (ctx) => {
    if (!api.ignoreTextObjects) ctx.skip(); // the API refuses {pattern, flags} until that piece is merged
    const made = await create({ name: `Patterns ${name}`, url: `${fx.url}/shop` });
    await openDashboard();
    await edit(`Patterns ${name}`);
    for (const pattern of ['\\d+ left', 'SALE']) {
      await page.getByRole('button', { name: 'Add pattern' }).click();
      await page.locator('#f-ignoretext-list > li:last-child input.pattern').fill(pattern);
    }
    await page.locator('#f-ignoretext-list > li:nth-child(2) input.match-case').check();
    await save();
    const saved = (await call('GET', `/api/monitors/${made.id}`)) as { diff: Json };
    expect(saved.diff.ignoreText).toEqual(['\\d+ left', { pattern: 'SALE', flags: '' }]);
  });

  /** A capture of a new monitor, and its history open on it. */
  async function historyOf(monitorName: string, body: Json) {
    const made = await create({ name: monitorName, ...body });
    const capture = (await captureNow(svc, key, made.id)) as unknown as Json & { id: string; status: string };
    return {
      capture,
      open: async () => {
        await openDashboard();
        await row(monitorName)
          .getByRole('button', { name: `History of ${monitorName}` })
          .click();
        await until(
          'the verdict',
          async () =>
            (await page.locator(`#captures button[data-capture="${capture.id}"]`).getAttribute('aria-pressed')) ===
              'true' && (await page.locator('#verdict[data-kind]').count()) === 1,
        );
      },
    };
  }
  const look = (selector: string) =>
    page.locator(selector).evaluate((el) => {
      const s = getComputedStyle(el);
      return { border: s.borderStyle, color: s.color };
    });

  it('PENDING the failed-fetch piece: a suspect capture says why, not compared, with its dashed badge', async (ctx) => {
    const { capture, open } = await historyOf(`Challenged ${name}`, {
      url: `${fx.url}/challenge`,
      capture: { failOnHttpError: false },
    });
    if (capture.status !== 'suspect') ctx.skip(); // nothing marks a bot check suspect until that piece is merged
    await open();
    const verdict = page.locator('#verdict');
    expect(await verdict.getAttribute('data-kind')).toBe('suspect');
    const message = (capture.error as { message: string }).message.replace(/\.$/, '');
    expect((await verdict.textContent())!.replace(/\s+/g, ' ')).toContain(
      `Suspect: ${message} — not compared, not a change.`,
    );
    const badge = `#captures button[data-capture="${capture.id}"] [data-status]`;
    expect(await page.locator(badge).textContent()).toBe('suspect');
    expect((await look(badge)).border).toBe('dashed');
    // Its own image only: it was never compared.
    expect(await page.locator('button[data-view="previous"]').isDisabled()).toBe(true);
    await noViolations('a suspect capture');
  });

  it('PENDING the filters piece: a capture whose filter matches nothing says the filter stopped matching', async (ctx) => {
    const { capture, open } = await historyOf(`Lost filter ${name}`, {
      url: `${fx.url}/shop`,
      diff: { filters: [{ css: '.no-such-thing' }], filterMissingAfter: 4 },
    });
    if (capture.status !== 'filter_missing') ctx.skip(); // filters are not applied until that piece is merged
    await open();
    const verdict = page.locator('#verdict');
    expect(await verdict.getAttribute('data-kind')).toBe('filter_missing');
    const text = (await verdict.textContent())!.replace(/\s+/g, ' ');
    expect(text).toContain('The filter stopped matching');
    expect(text).toContain('After 4 such captures in a row');
    expect(await page.locator('#verdict-edit').isVisible()).toBe(true);
    const badge = `#captures button[data-capture="${capture.id}"] [data-status]`;
    expect(await page.locator(badge).textContent()).toBe('filter missing');
    expect((await look(badge)).border).toBe('dashed');
    await noViolations('a filter_missing capture');
  });

  it('PENDING the content and product pieces: the capture says what it read, its price and stock', async (ctx) => {
    if (!api.productFacts) ctx.skip(); // captures carry no content / price until those pieces are merged
    const made = await create({ name: `Product ${name}`, url: `${fx.url}/shop` });
    await captureNow(svc, key, made.id);
    await openDashboard();
    await row(`Product ${name}`)
      .getByRole('button', { name: `History of Product ${name}` })
      .click();
    await until('the facts', async () =>
      ((await page.locator('#viewer-meta').textContent()) ?? '').includes('Product'),
    );
    const facts = (await page.locator('#viewer-meta').textContent())!;
    expect(facts).toContain('Web page (text/html)');
    expect(facts).toContain(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(24.99));
    expect(facts).toContain('In stock, read from the page’s JSON-LD (schema.org)');
    await noViolations('the product facts');
  });
});
