// fonts.dir: a font copied into the directory while the service runs is drawn by the renders that follow,
// without a restart (the browser is recycled), while a render in flight at that moment finishes. The base
// fonts are DejaVu alone, so the CJK font copied in is the only one Chromium can draw 中 with.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bytesOf, errorOf, type TestService } from '../helpers/service.js';
import { DEJAVU_DIR, fontconfigWith, startServiceWithFonts } from '../helpers/fontconfig.js';
import { pdfFonts } from '../helpers/pdf-fonts.js';
import { sleep, until } from '../helpers/until.js';

const CJK_FONT = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';

let svc: TestService;
let fontsDir: string;
beforeAll(async () => {
  fontsDir = mkdtempSync(join(tmpdir(), 'pagewatch-fonts-dir-'));
  svc = await startServiceWithFonts(fontconfigWith([DEJAVU_DIR]), { fonts: { dir: fontsDir } });
});
afterAll(async () => {
  await svc?.close();
  rmSync(fontsDir, { recursive: true, force: true });
});

const PAGE = '<!doctype html><meta charset="utf-8"><body><p id="zh">发票 中文</p></body>';

interface Ready {
  checks: { fonts?: string };
  missingFonts?: string[];
}
const ready = async () => (await (await fetch(`${svc.url}/ready`)).json()) as Ready;
const restarts = async () =>
  ((await (await fetch(`${svc.url}/api/status`)).json()) as { browser: { restarts: number } }).browser.restarts;

it('draws with a font copied into fonts.dir after start, once the browser is recycled; renders in flight finish', async () => {
  const before = await svc.post('/api/pdf', { html: PAGE, failOnMissingGlyphs: true });
  expect(before.status).toBe(422);
  expect((await errorOf(before)).details).toContainEqual({
    path: 'failOnMissingGlyphs',
    message: '#zh: U+4E2D "中" has no glyph in any font',
  });
  expect((await ready()).missingFonts).toContain('Han (Chinese, Japanese kanji)');

  // A file that is no font changes nothing: no recycle within 5 × the settle time (500 ms) it would take.
  const restartsAtStart = await restarts();
  writeFileSync(join(fontsDir, 'README.txt'), 'not a font');
  await sleep(2500); // bound: 5 × the 500 ms settle time a font change waits before recycling
  expect(await restarts()).toBe(restartsAtStart);

  // In flight on the current browser while the font arrives: it waits 3 s after load, then is captured.
  const inFlight = svc.post('/api/pdf', { html: PAGE, delay: 3000 });
  await until('the slow render to be in flight', async () => {
    const status = (await (await fetch(`${svc.url}/api/status`)).json()) as { render: { active: number } };
    return status.render.active > 0;
  });
  copyFileSync(CJK_FONT, join(fontsDir, 'NotoSansCJK-Regular.ttc'));

  const names = await until(
    'a render that embeds the copied Noto Sans CJK',
    async () => {
      const res = await svc.post('/api/pdf', { html: PAGE });
      if (res.status !== 200) return false;
      const fonts = (await pdfFonts(await bytesOf(res))).map((f) => f.name);
      return fonts.some((n) => n.startsWith('NotoSansCJK')) && fonts;
    },
    30_000,
    250,
  );
  expect(names.some((n) => n.startsWith('NotoSansCJK'))).toBe(true);
  // The render in flight finished on the browser it started on: without the font, and not failed.
  const slow = await inFlight;
  expect(slow.status).toBe(200);
  expect((await pdfFonts(await bytesOf(slow))).some((f) => f.name.startsWith('NotoSansCJK'))).toBe(false);
  expect(await restarts()).toBeGreaterThan(restartsAtStart);

  const after = await svc.post('/api/pdf', { html: PAGE, failOnMissingGlyphs: true });
  expect(after.status).toBe(200);
  const now = await ready();
  expect(now.missingFonts ?? []).not.toContain('Han (Chinese, Japanese kanji)');
}, 120_000);
