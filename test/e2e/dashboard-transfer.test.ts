// The dashboard's Export and import section (issue 28, item 6), in a real Chromium against the running
// service: Export downloads the key's monitors as the API's export (secrets named, not included); a dry run
// of urlwatch's urls.yaml says how many would be imported and creates nothing; the real import creates them
// and lists what was skipped; axe audits each state at laptop and phone widths, with no sideways scroll.
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { VIEWPORTS, violations } from '../helpers/axe.js';
import { startTestService, type TestService } from '../helpers/service.js';

const URLS_YAML = new URL('../fixtures/import/urls.yaml', import.meta.url);

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService({ rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 } });
  browser = await chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe.each(Object.entries(VIEWPORTS))('at %s width', (_name, viewport) => {
  let page: Page;
  let key: string;
  const names = async () =>
    ((await (await svc.call('GET', '/api/monitors', key)).json()) as { items: { name: string }[] }).items
      .map((m) => m.name)
      .sort();
  const audit = async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect(await violations(page)).toEqual([]);
  };
  beforeAll(async () => {
    key = svc.createKey(`transfer-${viewport.width}`).key;
    const res = await svc.call('POST', '/api/monitors', key, {
      name: 'Kettle',
      url: 'http://127.0.0.1:9/kettle',
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { headers: { 'X-Token': 'hunter2' } },
    });
    expect(res.status).toBe(201);
    page = await browser.newPage({ viewport, bypassCSP: true, acceptDownloads: true });
    page.setDefaultTimeout(15_000);
    await page.goto(`${svc.url}/monitors`);
    await page.getByRole('textbox', { name: 'API key' }).fill(key);
    await page.getByRole('button', { name: 'Save key' }).click();
  });
  afterAll(async () => {
    await page?.close();
  });

  it('exports the monitors as the API does, secrets named but left out', async () => {
    const section = page.getByRole('region', { name: 'Export and import' });
    await section.waitFor({ state: 'visible' });
    await audit();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('button', { name: 'Export monitors' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('pagewatch-monitors.json');
    const text = readFileSync(await download.path(), 'utf8');
    expect(text).not.toContain('hunter2');
    const file = JSON.parse(text) as { format: string; monitors: { name: string }[]; secretsOmitted: unknown[] };
    expect(file.format).toBe('pagewatch.monitors');
    expect(file.monitors.map((m) => m.name)).toEqual(['Kettle']);
    expect(file.secretsOmitted).toEqual([{ name: 'Kettle', fields: ['capture.headers.X-Token'] }]);
  });

  it("imports urlwatch's urls.yaml: a dry run first, then for real, saying what was skipped", async () => {
    const section = page.getByRole('region', { name: 'Export and import' });
    await section.getByLabel('File to import').setInputFiles(URLS_YAML.pathname);
    await section.getByLabel('Only show what would happen').check();
    await section.getByRole('button', { name: 'Import', exact: true }).click();
    await section.getByText(/monitors would be imported from the urlwatch file/).waitFor();
    expect(await names()).toEqual(['Kettle']);
    await audit();

    await section.getByLabel('Only show what would happen').uncheck();
    await section.getByRole('button', { name: 'Import', exact: true }).click();
    await section.getByText(/monitors imported from the urlwatch file/).waitFor();
    const skipped = await section.locator('#import-skipped li').allTextContents();
    expect(skipped.join('\n')).toMatch(/command/);
    expect((await names()).length).toBeGreaterThan(1);
    // The list shows the imported monitors without a reload.
    await page
      .locator('#list-section')
      .getByText((await names()).find((n) => n !== 'Kettle')!)
      .first()
      .waitFor();
    await audit();
  });
});
