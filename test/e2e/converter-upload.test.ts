// The converter's "Files" source, end to end: a real Chromium picks index.html and its assets (files, or a
// whole folder), the page sends them as multipart/form-data, and the PDF shows the uploaded stylesheet's
// and script's work; the curl preview is the -F form, which the shell reads into the same upload.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import { parsePdf } from '../helpers/pdf.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: TestService;
let browser: Browser;
let page: Page;
let dir: string;
const problems: string[] = [];

const INDEX =
  '<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head>' +
  '<body><h1>PICKED PAGE</h1><p id="o"></p><script src="app.js"></script></body></html>';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'converter-upload-'));
  mkdirSync(join(dir, 'site', 'css'), { recursive: true });
  writeFileSync(join(dir, 'site', 'index.html'), INDEX);
  writeFileSync(join(dir, 'site', 'css', 'site.css'), 'h1::after { content: " STYLED" }');
  writeFileSync(join(dir, 'site', 'app.js'), "document.getElementById('o').textContent = 'SCRIPTED';");
  [svc, browser] = await Promise.all([
    startTestService(),
    chromium.launch({ executablePath: findChromium(''), args: ['--no-sandbox'] }),
  ]);
  const context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function convert(): Promise<string> {
  await page.click('#convert');
  await until(
    'the conversion to finish',
    async () => (await page.getAttribute('#result', 'aria-busy')) === 'false' && (await page.isEnabled('#convert')),
  );
  return page.innerText('#status');
}

async function downloadedPdfText(): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  return (await parsePdf(readFileSync(await download.path()))).text;
}

describe('converter: Files', () => {
  it('uploads a picked folder as multipart and renders it with its stylesheet and script', async () => {
    await page.goto(`${svc.url}/`);
    await page.click('label[for="src-files"]');
    expect(await page.isVisible('#files')).toBe(true);
    expect(await page.isVisible('#html')).toBe(false);
    await page.setInputFiles('#folder', join(dir, 'site'));
    expect(await convert()).toMatch(/^Done: PDF/);
    const text = await downloadedPdfText();
    expect(text).toContain('PICKED PAGE STYLED');
    expect(text).toContain('SCRIPTED');
    expect(problems).toEqual([]);
  });

  it('shows the curl -F form, which the shell reads into the same upload', async () => {
    const command = await page.innerText('#curl');
    const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}`;
    const { stdout } = await promisify(execFile)('sh', ['-c', script], { env: { PATH: process.env.PATH ?? '' } });
    const args = stdout.split('\0').slice(0, -1);
    const forms = args.flatMap((a, i) => (a === '-F' ? [args[i + 1]!] : []));
    expect(forms.filter((f) => f.startsWith('files=')).sort()).toEqual([
      'files=@app.js;filename=app.js',
      'files=@css/site.css;filename=css/site.css',
      'files=@index.html;filename=index.html',
    ]);
    expect(forms.find((f) => f.startsWith('options='))).toBe('options={"format":"A4"};type=application/json');
  });

  it('without an index.html, says so beside the picker and sends nothing', async () => {
    await page.goto(`${svc.url}/`);
    await page.click('label[for="src-files"]');
    await page.setInputFiles('#files', join(dir, 'site', 'app.js'));
    await page.click('#convert');
    await until('the error beside the picker', () => page.isVisible('#files-error'));
    expect(await page.innerText('#files-error')).toContain('index.html');
    expect(await page.getAttribute('#files', 'aria-invalid')).toBe('true');
  });
});
