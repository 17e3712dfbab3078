// Text in the world's scripts, rendered by real Chromium with the system's fonts (Noto CJK, Noto
// Devanagari, Noto Color Emoji installed by scripts/ensure-chromium.mjs) and with those fonts hidden
// (a fontconfig file of DejaVu alone): the fonts embedded in the PDF, the text read back, the pixels of a
// glyph against those of a box, the characters each render finds with no glyph, and /ready's warning.
import { pdffonts, pdftotext } from '../helpers/poppler.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { DEJAVU_DIR, fontconfigWith, startServiceWithFonts } from '../helpers/fontconfig.js';
import { parsePdf } from '../helpers/pdf.js';
import { pdfFonts } from '../helpers/pdf-fonts.js';
import { decodePng } from '../helpers/png.js';

let system: TestService;
let hidden: TestService;
beforeAll(async () => {
  // One after the other: the second reads FONTCONFIG_FILE from the environment as it starts.
  system = await startTestService();
  hidden = await startServiceWithFonts(fontconfigWith([DEJAVU_DIR]));
});
afterAll(async () => {
  await Promise.all([system?.close(), hidden?.close()]);
});

const doc = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>body{font-family:Arial,sans-serif}</style></head><body>${body}</body></html>`;

const INVOICE = doc(
  '<h1>Invoice</h1>' +
    '<p id="ja">請求書 日本語 ひらがな</p>' +
    '<p id="zh">发票 中文</p>' +
    '<p id="ko">청구서 한국어</p>' +
    '<p id="hi">चालान हिन्दी</p>' +
    '<p id="ar">فاتورة</p>' +
    '<p id="emoji">😀 👍🏽 ❤️ 🇯🇵 👨‍👩‍👧 #️⃣</p>' +
    // Not drawn: never reported.
    '<div style="display:none"><span>隠</span></div><script>// 脚本</script><style>/* 样式 */</style>',
);

interface Detail {
  path: string;
  message: string;
}

async function missingOf(
  svc: TestService,
  body: Record<string, unknown>,
): Promise<{ message: string; details: Detail[] }> {
  const res = await svc.post('/api/pdf', { failOnMissingGlyphs: true, ...body });
  expect(res.status, 'a render with characters no font draws').toBe(422);
  const err = await errorOf(res);
  expect(err.code).toBe('render_failed');
  return { message: err.message, details: err.details ?? [] };
}

const detail = (selector: string, char: string) => ({
  path: 'failOnMissingGlyphs',
  message: `${selector}: U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} "${char}" has no glyph in any font`,
});

describe('with the system fonts', () => {
  it('embeds Noto CJK and Noto Sans Devanagari in the PDF, gives the text back, and finds no missing glyph', async () => {
    const res = await system.post('/api/pdf', { html: INVOICE, failOnMissingGlyphs: true });
    expect(res.status, await res.clone().text()).toBe(200);
    const bytes = await bytesOf(res);
    const fonts = await pdfFonts(bytes);
    const names = fonts.map((f) => f.name);
    expect(names.some((n) => /^NotoSansCJK/.test(n))).toBe(true);
    expect(names.some((n) => /^NotoSansDevanagari/.test(n))).toBe(true);
    expect(fonts.every((f) => f.embedded)).toBe(true);
    // NFKC: the text layer maps some ideographs to the Kangxi radical of the same glyph (日 as ⽇, U+2F47),
    // as Skia writes ToUnicode for a glyph the font shares between them.
    const text = (await parsePdf(bytes)).text.normalize('NFKC');
    for (const words of ['請求書', '日本語', 'ひらがな', '发票', '中文', '청구서', '한국어'])
      expect(text).toContain(words);
    // Devanagari and Arabic come back letter by letter (their order in the text layer is the shaper's).
    for (const ch of 'चलनहद' + 'فاتورة') expect(text).toContain(ch);
  });

  it("poppler's own tools read the same PDF: pdftotext gives the scripts back, pdffonts finds every font embedded", async () => {
    const res = await system.post('/api/pdf', { html: INVOICE });
    expect(res.status).toBe(200);
    const bytes = await bytesOf(res);
    const text = (await pdftotext(bytes)).normalize('NFKC');
    for (const words of ['請求書', '日本語', '发票', '中文', '청구서', '한국어', 'فاتورة'])
      expect(text).toContain(words);
    const fonts = await pdffonts(bytes);
    expect(fonts.length).toBeGreaterThan(0);
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    // Noto CJK goes in as Type 3 glyph procedures (listed "[none]"); Devanagari keeps its name.
    expect(fonts.some((f) => f.name.startsWith('NotoSansDevanagari'))).toBe(true);
    expect(fonts.some((f) => f.type === 'Type 3')).toBe(true);
  });

  it('draws a CJK character as a glyph, not as the box', async () => {
    const [glyph, box] = await Promise.all([pixelsOf(system, '中'), pixelsOf(system, '\u{10FFFD}')]);
    expect(differing(glyph, box)).toBeGreaterThan(50);
  });

  it('/ready: fonts ok, no warning about them', async () => {
    const res = await fetch(`${system.url}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: { fonts?: string }; missingFonts?: string[]; warnings?: string[] };
    expect(body.checks.fonts).toBe('ok');
    expect(body.missingFonts).toBeUndefined();
    expect((body.warnings ?? []).filter((w) => w.includes('font'))).toEqual([]);
  });
});

describe('with only DejaVu', () => {
  it('names each CJK, Hangul and Devanagari character and its element; hidden text, Arabic and emoji are not named', async () => {
    const { message, details } = await missingOf(hidden, { html: INVOICE });
    expect(message).toContain('failOnMissingGlyphs');
    expect(message).toContain('中 U+4E2D');
    for (const ch of '請求書日本語ひらがな') expect(details).toContainEqual(detail('#ja', ch));
    for (const ch of '发票中文') expect(details).toContainEqual(detail('#zh', ch));
    for (const ch of '청구서한국어') expect(details).toContainEqual(detail('#ko', ch));
    for (const ch of 'चलनहद') expect(details).toContainEqual(detail('#hi', ch));
    expect(details.some((d) => d.message.startsWith('#ar:'))).toBe(false); // DejaVu Sans has Arabic
    const named = details.map((d) => d.message);
    for (const ch of ['隠', '脚', '样', '式']) expect(named.some((m) => m.includes(`"${ch}"`))).toBe(false);
    // Combining marks (the vowel signs and virama of हिन्दी) are drawn on their base: never named alone.
    for (const ch of ['ि', '्', 'ी', 'ा']) expect(named.some((m) => m.includes(`"${ch}"`))).toBe(false);
    // Each character once, in document order.
    expect(new Set(named).size).toBe(named.length);
    expect(details[0]).toEqual(detail('#ja', '請'));
  });

  it('renders anyway without failOnMissingGlyphs', async () => {
    const res = await hidden.post('/api/pdf', { html: INVOICE });
    expect(res.status).toBe(200);
    const res2 = await hidden.post('/api/image', { html: INVOICE, failOnMissingGlyphs: false });
    expect(res2.status).toBe(200);
  });

  it('checks images too, and pages without JavaScript', async () => {
    const page = doc('<div><span class="x">中</span></div>');
    for (const body of [{ html: page }, { html: page, javaScriptEnabled: false }]) {
      const res = await hidden.post('/api/image', { ...body, failOnMissingGlyphs: true });
      expect(res.status).toBe(422);
      expect((await errorOf(res)).details).toEqual([detail('span.x', '中')]);
    }
  });

  it('draws the CJK character as the box', async () => {
    const [glyph, box] = await Promise.all([pixelsOf(hidden, '中'), pixelsOf(hidden, '\u{10FFFD}')]);
    expect(differing(glyph, box)).toBe(0);
  });

  it('lists at most 50 characters: 50 in full, 51 as "more than"', async () => {
    const han = (n: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
    const fifty = await missingOf(hidden, { html: doc(`<p id="many">${han(50)}</p>`) });
    expect(fifty.details).toHaveLength(50);
    expect(fifty.message).toContain('these 50 characters');
    const fiftyOne = await missingOf(hidden, { html: doc(`<p id="many">${han(51)}</p>`) });
    expect(fiftyOne.details).toHaveLength(50);
    expect(fiftyOne.details.at(-1)).toEqual(detail('#many', String.fromCodePoint(0x4e00 + 49)));
    expect(fiftyOne.message).toContain('more than 50 characters; the first 50');
  });

  it('/ready stays ready and names the scripts without a font', async () => {
    const res = await fetch(`${hidden.url}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      checks: { fonts?: string };
      missingFonts?: string[];
      warnings?: string[];
    };
    expect(body.status).toBe('ready');
    expect(body.checks.fonts).toBe('warn');
    expect(body.missingFonts).toEqual([
      'Han (Chinese, Japanese kanji)',
      'Kana (Japanese)',
      'Hangul (Korean)',
      'Devanagari (Hindi, Marathi, Nepali)',
      'colour emoji',
    ]);
    expect(body.warnings).toContainEqual(expect.stringContaining('no font for Han (Chinese, Japanese kanji)'));
  });
});

/** The pixels of one character drawn large, black on white. */
async function pixelsOf(svc: TestService, char: string): Promise<number[]> {
  const res = await svc.post('/api/image', {
    html: `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#fff"><span style="font:64px sans-serif;color:#000">${char}</span>`,
    viewport: { width: 96, height: 96 },
  });
  expect(res.status).toBe(200);
  const png = decodePng(await bytesOf(res));
  const out: number[] = [];
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) out.push(png.pixel(x, y).r);
  return out;
}

const differing = (a: number[], b: number[]) => a.filter((v, i) => v !== b[i]).length;
