// The converter page at `/`, end to end: a real Chromium (Playwright) drives the page against the real
// service, and what comes out — the downloaded bytes, the curl command — is checked for what it is.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, isPng } from '../helpers/png.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const SHOTS = process.env.E2E_SCREENSHOTS ?? join(tmpdir(), 'pagewatch-screenshots');
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Anything the page's CSP refused, and uncaught errors: both must stay empty. */
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [svc, browser] = await Promise.all([
    startTestService(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  context = await browser.newContext({ viewport: LAPTOP, acceptDownloads: true });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page = await context.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A 4xx answer to the page's fetch is logged by Chromium as "Failed to load resource": expected here.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      problems.push(`console: ${msg.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Opens the page fresh (module loaded: the sample is in the textarea). */
async function open(viewport = LAPTOP): Promise<void> {
  await page.setViewportSize(viewport);
  await page.goto(`${svc.url}/`);
  await until('the sample HTML in the textarea', async () => (await page.inputValue('#html')).includes('Invoice'));
}

/** Clicks Convert and waits until the page is no longer busy; returns the status line. */
async function convert(): Promise<string> {
  await page.click('#convert');
  await until(
    'the conversion to finish',
    async () => (await page.getAttribute('#result', 'aria-busy')) === 'false' && (await page.isEnabled('#convert')),
  );
  return page.innerText('#status');
}

/** The file behind the Download link, fetched the way a user gets it (a download). */
async function downloaded(): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

/** Chromium's viewer shows the page itself in the frame: white paper in the middle, not only its grey. */
async function pdfPainted(): Promise<void> {
  const preview = page.locator('#preview object');
  await until('the PDF painted in the preview', async () => {
    const shown = decodePng(await preview.screenshot());
    const { r, g, b } = shown.pixel(Math.floor(shown.width / 2), Math.floor(shown.height / 2));
    return r > 240 && g > 240 && b > 240;
  });
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `converter-${name}.png`), fullPage: true });
}

/** The shell's own reading of the curl command: `curl` is replaced by a function printing its arguments. */
async function curlArgs(command: string, env: Record<string, string> = {}): Promise<string[]> {
  const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}`;
  const { stdout } = await promisify(execFile)('sh', ['-c', script], { env: { PATH: process.env.PATH ?? '', ...env } });
  return stdout.split('\0').slice(0, -1);
}

/** The value after each occurrence of a flag (e.g. every -H). */
const flagValues = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

describe('converter page /', () => {
  it('converts the sample HTML to a one-page PDF, previewed and downloadable', async () => {
    await open();
    await shot('form-1280');
    expect(await page.isChecked('#src-html')).toBe(true);
    expect(await page.isChecked('#out-pdf')).toBe(true);
    // Only the PDF options show.
    expect(await page.isVisible('#paper')).toBe(true);
    expect(await page.isVisible('#landscape')).toBe(true);
    expect(await page.isVisible('#fullpage')).toBe(false);

    // The request is held at the browser until the busy state has been checked (a warm render can finish
    // before the checks run), then goes on to the real service unchanged.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/pdf', async (route) => {
      await held;
      await route.continue();
    });
    await page.click('#convert');
    // While it renders: the button is disabled, the spinner shows, the region is busy, the status says so.
    await until('the busy state', async () => (await page.getAttribute('#result', 'aria-busy')) === 'true');
    expect(await page.isDisabled('#convert')).toBe(true);
    expect(await page.getAttribute('#convert', 'aria-busy')).toBe('true');
    expect(await page.isVisible('#convert .spinner')).toBe(true);
    expect(await page.innerText('#status')).toBe('Rendering…');
    release();
    await until('the conversion to finish', async () => (await page.getAttribute('#result', 'aria-busy')) === 'false');
    await page.unroute('**/api/pdf');
    expect(await page.innerText('#status')).toMatch(/^Done: PDF, .*rendered in \d+ ms/);

    const preview = page.locator('#preview object[type="application/pdf"]');
    expect(await preview.isVisible()).toBe(true);
    expect(await preview.getAttribute('data')).toMatch(/^blob:/);
    const box = (await preview.boundingBox())!;
    expect(box.height).toBeGreaterThan(300);
    await pdfPainted();
    const meta = await page.innerText('#meta');
    expect(meta).toMatch(/1 page/);
    expect(meta).toMatch(/rendered in \d[\d,]* ms/);

    const file = await downloaded();
    expect(file.name).toBe('result.pdf');
    const pdf = await parsePdf(file.bytes);
    expect(pdf.pageCount).toBe(1);
    expect(pdf.text).toContain('INV-2026-0042');
    expect(pdf.text).toContain('Northwind Studio');
    expect(meta).toContain(file.bytes.length < 1024 * 1024 ? `${(file.bytes.length / 1024).toFixed(1)} KB` : 'MB');

    await shot('result-pdf-1280');
    // The same on a phone-sized window: converted there, so the viewer fits the page to that width.
    await page.setViewportSize(PHONE);
    expect(await convert()).toMatch(/^Done: PDF/);
    await pdfPainted();
    await shot('result-pdf-390');
  });

  it('converts HTML to a PNG of the chosen viewport, shown inline', async () => {
    await open(PHONE);
    await shot('form-390');
    await page.setViewportSize(LAPTOP);
    await page.click('label[for="out-png"]');
    // PNG options instead of PDF ones.
    expect(await page.isVisible('#paper')).toBe(false);
    expect(await page.isVisible('#margin')).toBe(false);
    expect(await page.isVisible('#quality')).toBe(false);
    expect(await page.isVisible('#fullpage')).toBe(true);
    expect(await page.isChecked('#fullpage')).toBe(false);
    await page.fill('#vw', '800');
    await page.fill('#vh', '600');

    expect(await convert()).toMatch(/^Done: PNG/);
    const img = page.locator('#preview img');
    await until('the image to decode', () =>
      img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0),
    );
    expect(await img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([800, 600]);
    expect(await img.isVisible()).toBe(true);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    expect(await img.getAttribute('alt')).toMatch(/PNG rendering of the HTML/);
    expect(await page.innerText('#meta')).toContain('800 × 600 px');

    const file = await downloaded();
    expect(file.name).toBe('result.png');
    expect(isPng(file.bytes)).toBe(true);
    const png = decodePng(file.bytes);
    expect([png.width, png.height]).toEqual([800, 600]);
    // The sample's page is white, with the invoice's ink on it: not a blank capture.
    expect(png.pixel(5, 5)).toMatchObject({ r: 255, g: 255, b: 255 });
    let ink = 0;
    for (let y = 0; y < png.height; y += 2) for (let x = 0; x < png.width; x += 2) if (png.pixel(x, y).r < 100) ink++;
    expect(ink).toBeGreaterThan(500);

    await shot('result-png-1280');
    await page.setViewportSize(PHONE);
    await shot('result-png-390');

    // JPG shows its quality field.
    await page.click('label[for="out-jpg"]');
    expect(await page.isVisible('#quality')).toBe(true);
    expect(await page.isVisible('#fullpage')).toBe(true);
  });

  it('says beside the result what the page reported while it rendered, and nothing for a clean page', async () => {
    await open();
    // The sample renders cleanly: no diagnosis is shown.
    expect(await convert()).toMatch(/^Done: PDF/);
    expect(await page.isVisible('#diagnosis')).toBe(false);

    await page.fill(
      '#html',
      '<p>broken</p><script>console.error("one");console.error("two")</script><script>throw new Error("boom")</script>',
    );
    expect(await convert()).toMatch(/^Done: PDF/);
    expect(await page.isVisible('#diagnosis')).toBe(true);
    expect(await page.innerText('#diagnosis')).toBe(
      'While it rendered, the page reported: 2 console errors, 1 uncaught exception. The answer with ' +
        '"response": "json" lists each one (the URL, the status or error, the message).',
    );
    expect(await page.getAttribute('#diagnosis a', 'href')).toBe('/docs#diagnostics');
    await shot('result-diagnosis-1280');
  });

  it('shows API errors in words: a blocked URL, and invalid fields highlighted', async () => {
    await open();
    // A result first: a failed conversion must not leave it on screen beside its error.
    expect(await convert()).toMatch(/^Done: PDF/);
    expect(await page.isVisible('#result-body')).toBe(true);
    await page.click('label[for="src-url"]');
    expect(await page.isVisible('#html')).toBe(false);
    await page.fill('#url', 'http://10.0.0.1/');
    await convert();

    const alert = page.getByRole('alert');
    await until('the error alert', async () => (await alert.innerText()).includes('url_blocked'));
    const words = await alert.innerText();
    expect(words).toContain('That address is blocked');
    expect(words).toContain('403 url_blocked');
    // The service's sentence, once (the page adds no words of its own to repeat it).
    expect(words).toMatch(/not allowed by the egress policy: the service does not fetch private or internal addresses/);
    expect(words.match(/not allowed by the egress policy/g)).toHaveLength(1);
    expect(await page.getAttribute('#url', 'aria-invalid')).toBe('true');
    expect(await page.isVisible('#result-body')).toBe(false);
    expect(await page.isVisible('#result-empty')).toBe(true);
    expect(await page.getAttribute('#download', 'href')).toBe('#');
    await shot('error-blocked-1280');
    await page.setViewportSize(PHONE);
    await shot('error-blocked-390');
    await page.setViewportSize(LAPTOP);

    // A field the API refuses (viewport width over 3840) is marked by its details[].path.
    await page.click('label[for="src-html"]');
    await page.fill('#vw', '5000');
    await page.fill('#margin', 'ten');
    await convert();
    await until('the invalid fields alert', async () => (await alert.innerText()).includes('invalid_request'));
    expect(await alert.innerText()).toContain('Some fields need fixing');
    expect(await page.getAttribute('#vw', 'aria-invalid')).toBe('true');
    expect(await page.innerText('#vw-error')).toBe('Viewport width can be at most 3,840 px: give a smaller number.');
    expect(await page.getAttribute('#vw', 'aria-describedby')).toContain('vw-error');
    expect(await page.getAttribute('#margin', 'aria-invalid')).toBe('true');
    expect(await page.innerText('#margin-error')).toMatch(/CSS length/);
    expect(await page.getAttribute('#url', 'aria-invalid')).toBeNull(); // the old error went
    // Fixing a field clears its mark.
    await page.fill('#vw', '1024');
    expect(await page.getAttribute('#vw', 'aria-invalid')).toBeNull();
    await shot('error-fields-1280');
  });

  it('shows the equivalent curl command, which the shell reads into the same request', async () => {
    await open();
    await page.click('label[for="out-png"]');
    // An apostrophe and a newline in the HTML test the shell quoting.
    await page.fill('#html', "<h1>It's a 'quoted' page</h1>\n<p>$HOME `x` \"y\"</p>");
    await page.fill('#vw', '640');
    await page.fill('#vh', '480');
    await convert();
    await until('the image', () => page.locator('#preview img').isVisible());

    const pre = page.locator('#curl');
    expect(await pre.isVisible()).toBe(true);
    // HTML is read from page.html unless asked inline (that form runs in converter-layout.test.ts).
    await page.click('label[for="curl-html-inline"]');
    const command = await pre.innerText();
    const endpoint = (await pre.getAttribute('data-endpoint'))!;
    const body = JSON.parse((await pre.getAttribute('data-body'))!) as Record<string, unknown>;
    expect(endpoint).toBe('/api/image');
    expect(body).toEqual({
      html: "<h1>It's a 'quoted' page</h1>\n<p>$HOME `x` \"y\"</p>",
      format: 'png',
      viewport: { width: 640, height: 480 },
    });
    expect(command).not.toMatch(/authorization/i);

    const args = await curlArgs(command);
    expect(args.slice(0, 3)).toEqual(['-X', 'POST', `${svc.url}/api/image`]);
    expect(flagValues(args, '-H')).toEqual(['content-type: application/json']);
    expect(flagValues(args, '-o')).toEqual(['result.png']);
    const dataRaw = flagValues(args, '--data-raw');
    expect(dataRaw).toHaveLength(1);
    expect(JSON.parse(dataRaw[0]!)).toEqual(body);

    // Posted as the command says, the service answers as it did to the page.
    const res = await fetch(args[2]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: dataRaw[0],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(decodePng(Buffer.from(await res.arrayBuffer())).width).toBe(640);

    // With a key: the command refers to $PAGEWATCH_KEY and never prints the key.
    const { key } = svc.createKey('converter-e2e');
    await page.click('#advanced summary');
    await page.fill('#key', key);
    await page.press('#key', 'Tab'); // change → stored
    expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBe(key);
    expect(await page.isVisible('#key-badge')).toBe(true);
    await page.click('label[for="out-pdf"]');
    await convert();
    const keyed = await pre.innerText();
    expect(keyed).not.toContain(key);
    expect(keyed).toContain('-H "Authorization: Bearer $PAGEWATCH_KEY"');
    const keyedArgs = await curlArgs(keyed, { PAGEWATCH_KEY: key });
    expect(keyedArgs[2]).toBe(`${svc.url}/api/pdf`);
    expect(flagValues(keyedArgs, '-H')).toEqual(['content-type: application/json', `Authorization: Bearer ${key}`]);
    expect(flagValues(keyedArgs, '-o')).toEqual(['result.pdf']);
    const keyedRes = await fetch(keyedArgs[2]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: flagValues(keyedArgs, '--data-raw')[0],
    });
    expect(keyedRes.status).toBe(200);
    expect(keyedRes.headers.get('content-type')).toBe('application/pdf');
    expect((await parsePdf(Buffer.from(await keyedRes.arrayBuffer()))).text).toContain("It's a 'quoted' page");

    // The key persists across a reload; Forget removes it.
    await open();
    expect(await page.inputValue('#key')).toBe(key);
    await page.click('#advanced summary');
    await page.click('#forget-key');
    expect(await page.evaluate(() => localStorage.getItem('pagewatch.apiKey'))).toBeNull();
  });

  it('works from the keyboard: Tab reaches source, HTML, format and Convert; Enter and Space convert', async () => {
    await open();
    const reached: string[] = [];
    for (let i = 0; i < 40 && !reached.includes('convert'); i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || ''));
    }
    expect(reached).toContain('src-html');
    expect(reached).toContain('html');
    expect(reached).toContain('out-pdf');
    expect(reached.at(-1)).toBe('convert');
    expect(reached.indexOf('src-html')).toBeLessThan(reached.indexOf('html'));
    expect(reached.indexOf('html')).toBeLessThan(reached.indexOf('out-pdf'));
    // The focus is visible.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');

    // Arrow keys move between the output radios.
    await page.focus('#out-pdf');
    await page.keyboard.press('ArrowRight');
    expect(await page.isChecked('#out-png')).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await page.isChecked('#out-pdf')).toBe(true);

    await page.focus('#convert');
    await page.keyboard.press('Enter');
    await until('the Enter conversion', async () => (await page.innerText('#status')).startsWith('Done'));
    const first = await page.getAttribute('#download', 'href');
    // The Tab walk left the page scrolled to the form's end, the result out of view above: the result was
    // scrolled into view and focused (converter-layout.test.ts covers the cases). Shift+Tab is Convert again.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('result');
    await page.keyboard.press('Shift+Tab');
    await until('Convert focused and enabled', () =>
      page.evaluate(() => {
        const b = document.getElementById('convert') as HTMLButtonElement;
        return document.activeElement === b && !b.disabled;
      }),
    );
    await page.keyboard.press('Space');
    await until('the Space conversion', async () => {
      const href = await page.getAttribute('#download', 'href');
      return href !== first && (await page.getAttribute('#result', 'aria-busy')) === 'false';
    });
    expect(await page.innerText('#status')).toMatch(/^Done: PDF/);
  });

  it('Cancel stops a slow conversion: the page is ready again at once and the service ends the render', async () => {
    await open();
    await page.fill('#delay', '10000');
    await page.click('#convert');
    await until('the render to start in the service', () => svc.limiter.activeCount === 1, 15_000, 20);
    expect(await page.isVisible('#cancel')).toBe(true);
    await shot('busy-with-cancel-1280');
    await page.click('#cancel');
    await until('the page to stop waiting', async () => (await page.getAttribute('#result', 'aria-busy')) === 'false');
    expect(await page.innerText('#status')).toBe('Canceled.');
    expect(await page.isVisible('#cancel')).toBe(false);
    expect(await page.isEnabled('#convert')).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('convert');
    expect(await page.innerText('#error')).toBe('');
    expect(await page.isVisible('#result-body')).toBe(false); // nothing had finished before
    // The service stopped the render when the request went away, long before its 10 s delay was over.
    await until('the service to end the render', () => svc.limiter.activeCount === 0, 5000, 20);
  });

  it('raised no CSP violation and no script error', () => {
    expect(problems).toEqual([]);
  });
});
