// The converter as a person meets it on a laptop (1280×800) and a phone (390×844): Convert is on the
// first screen, a result or an error lands where it can be seen (or is brought there and focused), the
// previous result is dimmed while a new one renders, Cancel leaves the result and its curl command as they
// were, and the curl command that reads the HTML from page.html really runs. Last, no page loads with a 404.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng } from '../helpers/png.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const shots = process.env.E2E_SCREENSHOTS; // a folder: screenshots are written there to be looked at
const run = promisify(execFile);
/** curl and jq are what a reader runs the commands with; a machine without them checks the commands' form only. */
const installed = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const CAN_RUN = { curl: installed('curl'), jq: installed('curl') && installed('jq') };
if (!CAN_RUN.jq) console.warn('converter-layout: curl or jq is not installed; the curl commands are checked, not run');

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  [svc, browser] = await Promise.all([
    startTestService(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Where an element is now, and whether it is what a person sees at its centre (not under the sticky bar). */
function seen(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const box = el.getBoundingClientRect();
    const x = box.left + Math.min(box.width / 2, 40);
    // Its first and last lines (the middle of a short element): nothing covers either.
    const ys = [box.top + Math.min(box.height / 2, 8), box.bottom - Math.min(box.height / 2, 8)];
    const hits = ys.map((y) => document.elementFromPoint(x, y));
    return {
      top: box.top,
      bottom: box.bottom,
      inside: box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth,
      visible: hits.every((hit) => Boolean(hit && (hit === el || el.contains(hit)))),
    };
  }, selector);
}

const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
const opacity = (page: Page, selector: string) =>
  page.evaluate((sel) => Number(getComputedStyle(document.querySelector(sel)!).opacity), selector);
const busy = async (page: Page) => (await page.getAttribute('#result', 'aria-busy')) === 'true';

describe.each(Object.entries(VIEWPORTS))('the converter at %s width', (name, viewport) => {
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // bypassCSP: axe is injected by the test (converter.test.ts checks the page under its real CSP).
    page = await browser.newPage({ viewport, bypassCSP: true, acceptDownloads: true });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  });
  afterAll(async () => {
    await page?.close();
  });

  async function open(): Promise<void> {
    await page.goto(`${svc.url}/`);
    await until('the sample HTML', async () => (await page.inputValue('#html')).includes('Invoice'));
  }
  async function done(): Promise<void> {
    await until('the conversion to end', async () => !(await busy(page)) && (await page.isEnabled('#convert')));
  }
  async function shot(state: string): Promise<void> {
    if (shots) await page.screenshot({ path: join(shots, `converter-${state}-${name}.png`) });
  }

  it('shows Convert on the first screen, and the result in view (or scrolled to and focused)', async () => {
    await open();
    expect(await page.evaluate(() => scrollY)).toBe(0);
    const convert = await seen(page, '#convert');
    expect(convert).toMatchObject({ inside: true, visible: true });
    expect(convert.bottom).toBeLessThanOrEqual(viewport.height);
    expect(await violations(page)).toEqual([]);
    await shot('first-screen');

    await page.click('#convert');
    await done();
    expect(await page.innerText('#status')).toMatch(/^Done: PDF/);
    if (name === 'laptop') {
      // Beside the form: already in view, so nothing moves and Convert keeps the focus (Enter converts again).
      expect(await page.evaluate(() => scrollY)).toBe(0);
      expect(await seen(page, '#result-title')).toMatchObject({ inside: true, visible: true });
      expect((await seen(page, '#preview')).top).toBeLessThan(viewport.height / 2);
      expect(await seen(page, '#download')).toMatchObject({ inside: true, visible: true });
      expect(await focused(page)).toBe('convert');
    } else {
      // Below the form: brought into view and focused.
      await until('the result scrolled into view', async () => (await seen(page, '#result-title')).inside);
      expect(await focused(page)).toBe('result');
      expect((await seen(page, '#result-title')).visible).toBe(true);
      await until('the scroll to settle', async () => (await seen(page, '#download')).inside);
      expect((await seen(page, '#download')).visible).toBe(true);
    }
    await shot('result');

    // From the form's end (the options), on any width: the result is above, out of view; it comes back.
    // From where the result is out of view: the options at the form's end on a laptop (the result column
    // is then above), the HTML at the form's top on a phone (the result is below the form).
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    await page.focus(name === 'laptop' ? '#delay' : '#html');
    expect((await seen(page, '#result-title')).inside).toBe(false);
    await page.click('#convert');
    await done();
    await until('the result scrolled into view', async () => (await seen(page, '#result-title')).inside);
    expect(await focused(page)).toBe('result');
    expect(await violations(page)).toEqual([]);
  });

  it('shows an error in view (or scrolled to and focused); an invalid field is focused beside its message', async () => {
    await open();
    await page.click('label[for="src-url"]');
    await page.fill('#url', 'http://10.0.0.1/');
    await page.click('#convert');
    await done();
    await until('the error', async () => (await page.innerText('#error')).includes('url_blocked'));
    if (name === 'laptop') {
      expect(await page.evaluate(() => scrollY)).toBe(0);
      expect(await seen(page, '#error .alert')).toMatchObject({ inside: true, visible: true });
      expect(await focused(page)).toBe('convert');
    } else {
      await until('the error scrolled into view', async () => (await seen(page, '#error .alert')).inside);
      expect((await seen(page, '#error .alert')).visible).toBe(true);
      expect(await focused(page)).toBe('error');
    }
    expect(await violations(page)).toEqual([]);
    await shot('error-blocked');

    // A field the API refuses: that field has the focus, and its message is seen beside it.
    await page.click('label[for="src-html"]');
    await page.fill('#vw', '5000');
    await page.click('#convert');
    await done();
    await until('the field error', async () => (await page.getAttribute('#vw', 'aria-invalid')) === 'true');
    expect(await focused(page)).toBe('vw');
    await until('the field and its message in view', async () => {
      const [field, message] = [await seen(page, '#vw'), await seen(page, '#vw-error')];
      return field.inside && field.visible && message.inside && message.visible;
    });
    expect(await violations(page)).toEqual([]);
    await shot('error-field');
  });

  it('dims the previous result while a new one renders, until it is replaced or an error shows', async () => {
    await open();
    await page.click('label[for="out-png"]');
    await page.click('#convert');
    await done();
    const first = await page.getAttribute('#preview img', 'src');
    expect(await opacity(page, '#result-body')).toBe(1);
    expect(await page.isVisible('#result-stale')).toBe(false);

    // The request waits at the browser until the busy state has been checked, then goes on unchanged.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/image', async (route) => {
      await held;
      await route.continue();
    });
    await page.fill('#vw', '640');
    await page.click('#convert');
    try {
      await until('the busy state', () => busy(page));
      await until('the previous result dimmed', async () => (await opacity(page, '#result-body')) < 0.5);
      expect(await opacity(page, '#curl-section')).toBeLessThan(0.5);
      expect(await page.innerText('#result-stale')).toMatch(/previous result/i);
      expect(await page.getAttribute('#preview img', 'src')).toBe(first); // still shown, dimmed
      // ...and inert: not clicked, nor read out, as if it were the answer.
      expect(await page.evaluate(() => document.getElementById('result-body')!.inert)).toBe(true);
      expect(await violations(page)).toEqual([]);
      await shot('busy-dimmed');
    } finally {
      release();
    }
    await done();
    await page.unroute('**/api/image');
    // Replaced: the new image, at full strength.
    expect(await page.getAttribute('#preview img', 'src')).not.toBe(first);
    await until('the result undimmed', async () => (await opacity(page, '#result-body')) === 1);
    expect(await page.evaluate(() => document.getElementById('result-body')!.inert)).toBe(false);
    expect(await page.isVisible('#result-stale')).toBe(false);

    // An error ends the dimming too: the result goes, the error shows, nothing stays dimmed or busy.
    await page.fill('#vw', '5000');
    await page.click('#convert');
    await done();
    await until('the error', async () => (await page.innerText('#error')).includes('invalid_request'));
    expect(await page.isVisible('#result-body')).toBe(false);
    expect(await page.isVisible('#result-stale')).toBe(false);
    await until('the curl box undimmed', async () => (await opacity(page, '#curl-section')) === 1);
  });

  it('Cancel keeps the result and the curl command of the request that produced it', async () => {
    await open();
    await page.click('#convert');
    await done();
    const shownBody = await page.getAttribute('#curl', 'data-body');
    const shownCommand = await page.innerText('#curl');
    const shownPdf = await page.getAttribute('#preview object', 'data');
    expect(JSON.parse(shownBody!)).not.toHaveProperty('delay');

    await page.fill('#delay', '10000');
    await page.click('#convert');
    await until('the render to start in the service', () => svc.limiter.activeCount === 1, 15_000, 20);
    // While it renders, the command is still the one behind the (dimmed) result.
    expect(await page.getAttribute('#curl', 'data-body')).toBe(shownBody);
    await page.click('#cancel');
    await done();
    expect(await page.innerText('#status')).toBe('Canceled.');
    expect(await page.getAttribute('#curl', 'data-body')).toBe(shownBody);
    expect(await page.innerText('#curl')).toBe(shownCommand);
    expect(await page.innerText('#curl')).not.toContain('10000');
    expect(await page.getAttribute('#preview object', 'data')).toBe(shownPdf);
    await until('the result undimmed', async () => (await opacity(page, '#result-body')) === 1);
    await until('the service to end the render', () => svc.limiter.activeCount === 0, 5000, 20);

    // A request that ends in an error is the one the curl box then shows (to reproduce it).
    await page.fill('#delay', '0');
    await page.fill('#vw', '5000');
    await page.click('#convert');
    await done();
    await until('the error', async () => (await page.innerText('#error')).includes('invalid_request'));
    expect(JSON.parse((await page.getAttribute('#curl', 'data-body'))!)).toMatchObject({
      viewport: { width: 5000, height: 800 },
    });
  });

  it('offers the HTML as page.html, with a curl command that really runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-curl-'));
    await open();
    // A non-ASCII page with a quote: the file keeps its bytes, the command its quoting.
    const html = `<!doctype html><meta charset="utf-8"><h1>Don't panic — 42 € (${name})</h1>`;
    await page.fill('#html', html);
    await page.click('#convert');
    await done();
    expect(await page.isVisible('#curl-variant')).toBe(true);
    expect(await page.isChecked('#curl-html-file')).toBe(true);
    const plain = await page.innerText('#curl');
    // Every default: the raw-HTML shortcut, the file as the whole body.
    expect(plain).toContain('--data-binary @page.html');
    expect(plain).toContain("-H 'content-type: text/html'");
    expect(plain).not.toContain('Invoice');
    expect(plain.split('\n').every((line) => line.length < 100)).toBe(true);
    expect(await violations(page)).toEqual([]);
    await shot('curl-file');

    // The page.html link gives the HTML that was converted.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#page-download')]);
    expect(download.suggestedFilename()).toBe('page.html');
    await download.saveAs(join(dir, 'page.html'));
    expect(readFileSync(join(dir, 'page.html'), 'utf8')).toBe(html);

    if (CAN_RUN.curl) {
      await run('sh', ['-c', plain], { cwd: dir });
      const pdf = await parsePdf(readFileSync(join(dir, 'result.pdf')));
      expect(pdf.pageCount).toBe(1);
      expect(pdf.text).toContain(`Don't panic`);
    }

    // With options: jq builds the JSON around the file, curl sends it from its standard input.
    await page.click('label[for="out-png"]');
    await page.fill('#vw', '640');
    await page.fill('#vh', '480');
    await page.click('#convert');
    await done();
    const withJq = await page.innerText('#curl');
    expect(withJq).toMatch(/^jq -Rs --argjson options '.*' '\{html: \.\} \+ \$options' page\.html \|/);
    expect(withJq).toContain('--data-binary @-');
    writeFileSync(join(dir, 'page.html'), html);
    if (CAN_RUN.jq) {
      await run('sh', ['-c', withJq], { cwd: dir });
      const png = decodePng(readFileSync(join(dir, 'result.png')));
      expect([png.width, png.height]).toEqual([640, 480]);
      let ink = 0;
      for (let y = 0; y < png.height; y += 2) for (let x = 0; x < png.width; x += 2) if (png.pixel(x, y).r < 100) ink++;
      expect(ink).toBeGreaterThan(100); // the heading, not a blank capture
    }

    // Inline is still there, one switch away; a URL has no HTML to put in a file.
    await page.click('label[for="curl-html-inline"]');
    expect(await page.innerText('#curl')).toContain('--data-raw');
    expect(await page.innerText('#curl')).not.toContain('page.html');
    await page.click('label[for="src-url"]');
    await page.fill('#url', 'http://10.0.0.1/');
    await page.click('#convert');
    await done();
    expect(await page.isVisible('#curl-variant')).toBe(false);
    expect(await page.innerText('#curl')).toContain('10.0.0.1');
  });

  it('loads every page without a 404, each with the site icon', async () => {
    for (const path of ['/', '/monitors', '/status', '/docs']) {
      const failed: string[] = [];
      const onResponse = (res: { status(): number; url(): string }) => {
        if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
      };
      page.on('response', onResponse);
      await page.goto(`${svc.url}${path}`, { waitUntil: 'networkidle' });
      page.off('response', onResponse);
      expect(failed, path).toEqual([]);
      // Headless Chromium does not ask for a favicon itself: the page must name one that is served.
      const icon = await page.getAttribute('link[rel~="icon"]', 'href');
      expect(icon, path).toBe('/assets/icon.svg');
      const res = await page.request.get(`${svc.url}${icon}`);
      expect(res.status(), path).toBe(200);
      expect(res.headers()['content-type']).toBe('image/svg+xml');
    }
  });

  it('raised no script error', () => {
    expect(problems).toEqual([]);
  });
});
