// GET /docs in a real browser against a service started with non-default limits: the page states the
// configured values (not the defaults), its links resolve, its headings are in order, it obeys the
// strict page CSP, fits a phone, and escapes what it interpolates. Screenshots are written for people
// to look at (see SHOTS below).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { projectRoot } from '../../src/project-root.js';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { renderDocsPage } from '../../src/web/docs-page.js';
import { PAGE_CSP } from '../../src/web/routes.js';
import { decodePng, isPng } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';

const SHOTS = process.env.E2E_SCREENSHOTS ?? join(tmpdir(), 'pagewatch-screenshots');

/** Values no default has, so finding them in the page proves it reads the configuration. */
const OVERRIDES = {
  limits: {
    maxTimeoutMs: 90_000,
    maxBodyBytes: 3 * 1024 * 1024,
    anonymousMaxBodyBytes: 512 * 1024,
    maxFullPageHeight: 12_345,
    maxImagePixels: 7_654_321,
    anonymousMaxTimeoutMs: 21_000,
    anonymousConcurrencyPerIp: 3,
    anonymousMaxPdfPages: 44,
  },
  render: { concurrency: 3, queueSize: 7, restartAfter: 321 },
  rateLimit: { perKeyPerMinute: 456, anonymousPerMinute: 1_000 },
  jobs: { resultTtlHours: 6, maxQueuedPerKey: 77, maxAttempts: 4 },
  monitors: { maxPerKey: 12, maxRetention: 250, minIntervalSeconds: 300, maxStoredBytesPerKey: 5 * 1024 * 1024 },
  webhooks: { timeoutMs: 9_000, retryScheduleMs: [1_000, 60_000, 600_000] },
};

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [svc, browser] = await Promise.all([
    startTestService(OVERRIDES),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), svc?.close()]);
});

/** Opens /docs at a viewport size, failing on any console error or page error (a CSP refusal is one). */
async function openDocs(
  width: number,
  height: number,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
  });
  const res = await page.goto(`${svc.url}/docs`);
  expect(res?.status()).toBe(200);
  return { page, problems };
}

describe('/docs', () => {
  it("is served as HTML with the pages' CSP", async () => {
    const res = await fetch(`${svc.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const text = await res.text();
    expect(text).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i); // nothing the CSP would refuse
    const css = await fetch(`${svc.url}/assets/docs.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('states the configured values, not the defaults', async () => {
    const { page, problems } = await openDocs(1280, 800);
    const value = (setting: string) => page.locator(`[data-setting="${setting}"] .value`).innerText();
    const expected: Record<string, string[]> = {
      'limits.maxBodyBytes': ['3145728 bytes', '3 MiB'],
      'limits.anonymousMaxBodyBytes': ['524288 bytes', '512 KiB'],
      'limits.maxTimeoutMs': ['90000 ms', '1.5 min'],
      'limits.maxFullPageHeight': ['12345 px'],
      'limits.maxImagePixels': ['7654321 pixels'],
      'render.concurrency': ['3 renders'],
      'render.queueSize': ['7 renders'],
      'render.restartAfter': ['321 renders'],
      'rateLimit.perKeyPerMinute': ['456 requests / minute'],
      'rateLimit.anonymousPerMinute': ['1000 requests / minute'],
      'jobs.resultTtlHours': ['6 hours'],
      'jobs.maxQueuedPerKey': ['77 jobs'],
      'jobs.maxAttempts': ['4 tries'],
      'monitors.maxPerKey': ['12 monitors'],
      'monitors.maxRetention': ['250 captures'],
      'monitors.minIntervalSeconds': ['300 s', '5 min'],
      'monitors.maxStoredBytesPerKey': ['5242880 bytes', '5 MiB'],
      'limits.anonymousMaxTimeoutMs': ['21000 ms', '21 s'],
      'limits.anonymousConcurrencyPerIp': ['3 renders'],
      'limits.anonymousMaxPdfPages': ['44 pages'],
      'webhooks.timeoutMs': ['9000 ms', '9 s'],
      'webhooks.retryScheduleMs': ['1000, 60000, 600000 ms', '1 s, 1 min, 10 min'],
    };
    for (const [setting, parts] of Object.entries(expected)) {
      const text = await value(setting);
      for (const part of parts) expect(text, setting).toContain(part);
    }
    const body = await page.locator('main').innerText();
    expect(body).toContain('at most 90000 ms'); // runtime behaviour: timeouts
    expect(body).toContain('timeout of at most 21000 ms'); // the anonymous tier's own limits
    expect(body).toContain('run 3 at a time per client IP');
    expect(body).toContain('PDFs of at most 44 pages');
    expect(body).toContain('up to 7 more wait'); // runtime behaviour: queueing
    expect(body).toContain('retried after about 1 s, 1 min, 10 min');
    expect(body).toContain('3 retries, then the delivery has failed');
    expect(body).toContain('bodies up to 512 KiB and 1000 requests a minute per client IP');
    expect(body).toContain('Hosts always allowed here: 127.0.0.1, localhost');
    for (const event of ['job.succeeded', 'job.failed', 'monitor.changed', 'capture.completed', 'capture.failed'])
      expect(body).toContain(event);
    for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(body).toContain(h);
    // The curl examples name the address the page was reached at.
    expect(body).toContain(`curl -X POST ${svc.url}/api/pdf`);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('has one h1, headings in order, and a table of contents that reaches every section', async () => {
    const { page } = await openDocs(1280, 800);
    const headings = await page
      .locator('h1, h2, h3, h4, h5, h6')
      .evaluateAll((els) => els.map((e) => ({ level: Number(e.tagName[1]), text: e.textContent ?? '' })));
    expect(headings.filter((h) => h.level === 1)).toHaveLength(1);
    expect(headings[0]!.level).toBe(1);
    headings.reduce((prev, h) => {
      expect(h.level - prev, `"${h.text}" skips a level`).toBeLessThanOrEqual(1);
      return h.level;
    }, 1);
    const toc = await page
      .locator('nav.toc a')
      .evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href') ?? '', text: a.textContent ?? '' })));
    expect(toc.map((t) => t.text)).toEqual(
      expect.arrayContaining([
        'Quick start',
        'Authentication',
        'Limits',
        'Webhooks',
        'Runtime behaviour',
        'Monitors',
        'Reference',
      ]),
    );
    const sections = await page.locator('.docs-body > section').evaluateAll((ss) => ss.map((s) => `#${s.id}`));
    expect(toc.map((t) => t.href)).toEqual(sections);
    for (const t of toc) {
      const h2 = page.locator(`${t.href} > h2`);
      expect(await h2.innerText()).toBe(t.text);
    }
    // Keyboard: the skip link comes first, and following a TOC entry moves there.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.locator('nav.toc a', { hasText: 'Webhooks' }).click();
    expect(new URL(page.url()).hash).toBe('#webhooks');
    expect(await page.locator('#webhooks').evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(50);
    await page.context().close();
  });

  it('every link resolves: same-origin pages answer, fragments exist', async () => {
    const { page, problems } = await openDocs(1280, 800);
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    const origin = new URL(svc.url).origin;
    const external = hrefs.filter((h) => new URL(h).origin !== origin);
    expect(external).toEqual([]); // works offline: nothing points away from the service
    const targets = new Set(
      hrefs.map((h) => {
        const u = new URL(h);
        return u.pathname + u.search;
      }),
    );
    expect([...targets]).toEqual(expect.arrayContaining(['/openapi.json', '/status', '/docs', '/', '/monitors']));
    const docsFiles = readdirSync(join(projectRoot(), 'docs')).filter((f) => f.endsWith('.md'));
    expect([...targets]).toEqual(expect.arrayContaining(docsFiles.map((f) => `/docs/${f}`))); // every reference file
    for (const target of targets) {
      const res = await fetch(`${svc.url}${target}`);
      expect(res.status, `${target} answers`).not.toBe(404);
      expect(res.status, `${target} answers`).toBeLessThan(400);
    }
    for (const h of hrefs.filter((x) => x.includes('#'))) {
      const id = decodeURIComponent(new URL(h).hash.slice(1));
      expect(await page.locator(`[id="${id}"]`).count(), `#${id} exists`).toBe(1);
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows docs/webhooks.md's Node verification snippets verbatim", async () => {
    const { page } = await openDocs(1280, 800);
    const snippets = await page.locator('#webhooks pre[aria-label^="Verifying"] code').allTextContents();
    expect(snippets).toHaveLength(2);
    const webhooks = readFileSync(join(projectRoot(), 'docs/webhooks.md'), 'utf8');
    for (const s of snippets) {
      expect(s).toContain('webhook');
      expect(webhooks).toContain(s);
    }
    await page.context().close();
  });

  it('fits a phone and a laptop; screenshots for a person to look at', async () => {
    for (const [name, width, height, scheme] of [
      ['1280', 1280, 800, 'light'],
      ['390', 390, 844, 'light'],
      ['390-dark', 390, 844, 'dark'],
    ] as const) {
      const { page, problems } = await openDocs(width, height, scheme);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `no sideways scrolling at ${width}`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `docs-${name}.png`) });
      await page.screenshot({ path: join(SHOTS, `docs-${name}-full.png`), fullPage: true });
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it("renders through the service's own image API", async () => {
    const res = await svc.post('/api/image', { url: `${svc.url}/docs`, fullPage: true });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    const bytes = await bytesOf(res);
    expect(isPng(bytes)).toBe(true);
    const png = decodePng(bytes);
    expect(png.width).toBe(1280);
    expect(png.height).toBeGreaterThan(3000); // the whole page, not one screen
    writeFileSync(join(SHOTS, 'docs-via-api.png'), bytes);
  });

  it('escapes every interpolated value', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const config = loadConfig({
      env: {},
      overrides: { egress: { allowHosts: [hostile], denyHosts: ['"><script>alert(2)</script>'] } },
    });
    const page = renderDocsPage(config, 'http://x"><script>alert(3)</script>');
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<script');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page).not.toContain('alert(3)'); // an odd address is not put into copy-paste commands at all
  });

  it('says so when the anonymous tier is off', () => {
    const config = loadConfig({ env: {}, overrides: { auth: { anonymous: false } } });
    const page = renderDocsPage(config, 'http://localhost:3000');
    expect(page).toContain('The anonymous tier is off on this service');
    expect(page).toContain(
      'curl -X POST http://localhost:3000/api/pdf -H &quot;Authorization: Bearer $PAGEWATCH_KEY&quot;',
    );
  });

  it('says when /api/status and /metrics need a key, and not otherwise', () => {
    const closed = renderDocsPage(
      loadConfig({ env: {}, overrides: { auth: { publicOperations: false } } }),
      'http://localhost:3000',
    );
    expect(closed).toContain('need an API key (<code>auth.publicOperations</code> is false)');
    expect(closed).toContain('<code>authorization: {credentials: &lt;key&gt;}</code>');
    expect(closed).not.toContain('except <code>GET /api/status</code>');
    const open = renderDocsPage(loadConfig({ env: {} }), 'http://localhost:3000');
    expect(open).not.toContain('auth.publicOperations');
    expect(open).toContain('except <code>GET /api/status</code> and <code>GET /metrics</code>');
  });
});
