// readBlocks against a real Chromium (no service): which blocks a page yields, their selectors, boxes and
// limits, and what a page that lies about itself can and cannot make them say.
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/browser/chromium-path.js';
import type { Layout, Rect } from '../../src/render/page-reads/page-geometry.js';
import {
  MAX_BLOCKS,
  MAX_BLOCK_CHARS,
  MAX_DEPTH,
  MAX_SELECTOR_CHARS,
  MAX_TOTAL_CHARS,
  MAX_WALKED_ELEMENTS,
  coerceBlock,
  readBlocks,
} from '../../src/render/page-reads/text-blocks.js';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: findChromium(process.env.PAGEWATCH_CHROMIUM_PATH ?? ''),
    chromiumSandbox: false,
  });
});
afterAll(async () => {
  await browser?.close();
});

const VIEW: Rect = { x: 0, y: 0, width: 1280, height: 800 };
const layoutAt = (x = 0, y = 0): Layout => ({
  content: { width: 1280, height: 800 },
  visible: { ...VIEW, x, y },
  pinchZoom: 1,
  layoutScroll: { x, y },
});

async function withPage<T>(html: string, run: (page: Page) => Promise<T>, scale = 1): Promise<T> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: scale });
  try {
    const page = await context.newPage();
    await page.setContent(
      `<!doctype html><html><head><style>body{margin:0;font:16px sans-serif}</style></head><body>${html}</body></html>`,
    );
    return await run(page);
  } finally {
    await context.close();
  }
}
const blocksOf = (html: string, textSelector?: string, area = VIEW) =>
  withPage(html, (page) => readBlocks(page, textSelector, area, layoutAt(), 1));
/** A full-page capture's area: the whole of a tall page. */
const TALL: Rect = { x: 0, y: 0, width: 1280, height: 4000 };

describe('readBlocks', () => {
  it("gives blocks in reading order with their own inline text (not a child block's), collapsed", async () => {
    const blocks = await blocksOf(`<h1>Blue   kettle</h1><div id="card"><p>Only <b>today</b>,
      <a href="#">see more</a></p>Loose text<div class="price">$24.99</div></div><footer><span>(c) Shop</span></footer>`);
    expect(blocks.map(({ tag, text }) => [tag, text])).toEqual([
      ['h1', 'Blue kettle'],
      ['div', 'Loose text'],
      ['p', 'Only today, see more'],
      ['div', '$24.99'],
      ['footer', '(c) Shop'],
    ]);
  });

  it('an empty block with no block inside (a coloured box) is kept with no text, so a region can name it; an empty wrapper is not', async () => {
    const blocks = await blocksOf(
      `<div id="wrap"><div id="swatch" style="width:50px;height:50px;background:red"></div><p>Text</p></div>`,
    );
    expect(blocks.map(({ selector, text }) => [selector, text])).toEqual([
      ['#swatch', ''],
      ['#wrap > p', 'Text'],
    ]);
  });

  it('selectors are short and unique: #id, then tag.class, then a tag:nth-of-type path from an id or body', async () => {
    const html = `<div id="a"><p>one</p><p>two</p></div><p class="note">three</p><p class="x">four</p><p class="x">five</p>
      <section><div><span style="display:block">six</span></div></section><p id="dup">seven</p><p id="dup">eight</p>`;
    await withPage(html, async (page) => {
      const blocks = await readBlocks(page, undefined, VIEW, layoutAt(), 1);
      expect(blocks.map((b) => [b.selector, b.text])).toEqual([
        ['#a > p:nth-of-type(1)', 'one'],
        ['#a > p:nth-of-type(2)', 'two'],
        ['p.note', 'three'],
        ['body > p:nth-of-type(2)', 'four'],
        ['body > p:nth-of-type(3)', 'five'],
        ['body > section > div > span', 'six'],
        ['body > p:nth-of-type(4)', 'seven'],
        ['body > p:nth-of-type(5)', 'eight'],
      ]);
      for (const b of blocks) {
        const found = await page.evaluate(
          (s) => Array.from(document.querySelectorAll(s), (e) => (e as HTMLElement).innerText.trim()),
          b.selector,
        );
        expect(found).toEqual([b.text]);
      }
    });
  });

  it('replaced elements are blocks too, named by alt text, title or value; a password is never read', async () => {
    const blocks =
      await blocksOf(`<img alt="Kettle photo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="40" height="40">
      <svg width="20" height="20"><title>Cart</title><rect width="20" height="20"/></svg><canvas width="30" height="30"></canvas>
      <input value="alice"><input type="password" value="hunter2"><input type="checkbox" checked>
      <select><option>Red</option><option selected>Blue</option></select><textarea>Hello</textarea>`);
    expect(blocks.map(({ tag, text }) => [tag, text])).toEqual([
      ['img', 'Kettle photo'],
      ['svg', 'Cart'],
      ['canvas', ''],
      ['input', 'alice'],
      ['input', ''],
      ['input', 'checked'],
      ['select', 'Blue'],
      ['textarea', 'Hello'],
    ]);
  });

  it('what was typed into an editable field (a capture step may fill in a secret) is not read; a read-only field reads as shown', async () => {
    const blocks = await withPage(
      `<input id="token" value="page default"><input id="blank"><textarea id="note">authored</textarea>
      <input id="total" readonly value="0"><textarea id="log" disabled></textarea>`,
      async (page) => {
        await page.fill('#token', 'sk_live_typed_secret');
        await page.fill('#blank', 'typed');
        await page.fill('#note', 'typed note');
        await page.evaluate(() => {
          (document.getElementById('total') as HTMLInputElement).value = '42.00';
          (document.getElementById('log') as HTMLTextAreaElement).value = 'computed';
        });
        return readBlocks(page, undefined, VIEW, layoutAt(), 1);
      },
    );
    expect(blocks.map(({ selector, text }) => [selector, text])).toEqual([
      ['#token', 'page default'],
      ['#blank', ''],
      ['#note', 'authored'],
      ['#total', '42.00'],
      ['#log', 'computed'],
    ]);
    expect(JSON.stringify(blocks)).not.toContain('typed');
  });

  it('leaves out what is not shown: display:none, visibility:hidden, empty boxes, scripts, and blocks outside the captured area', async () => {
    const blocks = await blocksOf(`<p>shown</p><p style="display:none">none</p><p style="visibility:hidden">hidden
      <span style="visibility:visible;display:block">visible child</span></p><p style="height:0;overflow:hidden;margin:0">flat</p>
      <p>inline <span style="visibility:hidden">secret</span> part</p><script>var x = "code"</script>
      <p style="position:absolute;top:1500px">below the fold</p>`);
    expect(blocks.map((b) => b.text)).toEqual(['shown', 'visible child', 'inline part']);
  });

  it('boxes are in image pixels of the capture: moved to its origin, scaled, rounded outward, clamped', async () => {
    const html = `<div id="box" style="position:absolute;left:100.5px;top:1000px;width:50px;height:20px">Price</div>
      <div id="edge" style="position:absolute;left:1270px;top:1010px;width:100px;height:10px">Edge</div>`;
    const area: Rect = { x: 0, y: 900, width: 1280, height: 800 }; // a clip that starts 900 px down
    const blocks = await withPage(html, (page) => readBlocks(page, undefined, area, layoutAt(), 2), 2);
    expect(blocks).toEqual([
      { selector: '#box', tag: 'div', text: 'Price', box: { x: 201, y: 200, width: 100, height: 40 } },
      { selector: '#edge', tag: 'div', text: 'Edge', box: { x: 2540, y: 220, width: 20, height: 20 } },
    ]);
  });

  it('textSelector: only its first match and what is inside it; none when it matches nothing; invalid fails the capture', async () => {
    const html = `<h1>Title</h1><section class="main"><h2>Offer</h2><p>Price <b>$5</b></p></section><section class="main"><p>Second</p></section>`;
    expect((await blocksOf(html, 'section.main')).map((b) => b.text)).toEqual(['Offer', 'Price $5']);
    expect((await blocksOf(html, 'section.main p b')).map((b) => [b.tag, b.text])).toEqual([['b', '$5']]);
    expect(await blocksOf(html, '#nothing')).toEqual([]);
    await expect(blocksOf(html, 'p[')).rejects.toThrow('diff.textSelector: "p[" is not a valid CSS selector');
  });

  it(`keeps ${MAX_BLOCKS} blocks (at the edge all, one over: the last dropped) and ${MAX_BLOCK_CHARS} characters a block`, async () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => `<p style="margin:0;height:1px;font-size:1px">r${i}</p>`).join('');
    const at = await blocksOf(`<div>${rows(MAX_BLOCKS)}</div>`, undefined, TALL);
    expect(at).toHaveLength(MAX_BLOCKS);
    const over = await blocksOf(`<div>${rows(MAX_BLOCKS + 1)}</div>`, undefined, TALL);
    expect(over).toHaveLength(MAX_BLOCKS);
    expect(over.at(-1)!.text).toBe(`r${MAX_BLOCKS - 1}`);
    const [exact, long] = await blocksOf(
      `<p>${'a'.repeat(MAX_BLOCK_CHARS)}</p><p>${'b'.repeat(MAX_BLOCK_CHARS + 1)}</p>`,
    );
    expect(exact!.text).toBe('a'.repeat(MAX_BLOCK_CHARS));
    expect(long!.text).toBe('b'.repeat(MAX_BLOCK_CHARS));
  });

  it(`stops at ${MAX_TOTAL_CHARS} characters in all`, async () => {
    const n = MAX_TOTAL_CHARS / MAX_BLOCK_CHARS;
    const paragraphs = Array.from(
      { length: n + 1 },
      (_, i) => `<p style="margin:0;font-size:1px;word-break:break-all">${String(i % 10).repeat(MAX_BLOCK_CHARS)}</p>`,
    ).join('');
    const blocks = await blocksOf(paragraphs, undefined, TALL);
    expect(blocks).toHaveLength(n);
    expect(blocks.reduce((sum, b) => sum + b.text.length, 0)).toBe(MAX_TOTAL_CHARS);
  });

  it(`a selector too deep for ${MAX_SELECTOR_CHARS} characters keeps its last whole steps, and still finds the element`, async () => {
    const deep = (n: number) => `${'<div>'.repeat(n)}<p>deep</p>${'</div>'.repeat(n)}`;
    await withPage(deep(60), async (page) => {
      const [block] = await readBlocks(page, undefined, VIEW, layoutAt(), 1);
      expect(block!.selector.length).toBeLessThanOrEqual(MAX_SELECTOR_CHARS);
      expect(block!.selector).toMatch(/^div > (div > )+p$/);
      const texts = await page.evaluate(
        (s) => Array.from(document.querySelectorAll(s), (e) => e.textContent),
        block!.selector,
      );
      expect(texts).toContain('deep');
    });
    // 48 levels: "body > " + 48 × "div > " + "p" = 295 characters, the whole path.
    const [whole] = await blocksOf(deep(48));
    expect(whole!.selector).toBe(`body > ${'div > '.repeat(48)}p`);
    // What the page returns is cut the same way: whole steps, or nothing.
    const raw = { tag: 'p', text: 'x', x: 0, y: 0, width: 1, height: 1 };
    expect(coerceBlock({ ...raw, selector: `${'a > '.repeat(100)}p` })!.selector).toMatch(/^a > (a > )+p$/);
    expect(coerceBlock({ ...raw, selector: 'x'.repeat(MAX_SELECTOR_CHARS + 1) })).toBeNull();
    expect(coerceBlock({ ...raw, selector: 'x'.repeat(MAX_SELECTOR_CHARS) })!.selector).toHaveLength(
      MAX_SELECTOR_CHARS,
    );
  });

  it(`walks at most ${MAX_WALKED_ELEMENTS} elements: a block that is the last of them is read, one after it is not`, async () => {
    const page = (n: number) => `${'<i></i>'.repeat(n - 1)}<p>last</p>`;
    expect((await blocksOf(page(MAX_WALKED_ELEMENTS))).map((b) => b.text)).toEqual(['last']);
    expect((await blocksOf(page(MAX_WALKED_ELEMENTS + 1))).map((b) => b.text)).toEqual(['']); // body alone, with no text
  });

  it(`reads elements nested ${MAX_DEPTH} deep, not deeper (a page nested 2,000 deep is read down to that depth)`, async () => {
    // Depth counts from body's children (1): a <p> inside MAX_DEPTH - 1 divs is at MAX_DEPTH.
    const nested = (divs: number) => `${'<div>'.repeat(divs)}<p>deep</p>${'</div>'.repeat(divs)}`;
    expect((await blocksOf(nested(MAX_DEPTH - 1))).map((b) => b.text)).toContain('deep');
    expect((await blocksOf(nested(MAX_DEPTH))).map((b) => b.text)).not.toContain('deep');
    const blocks = await withPage('<h1>Top</h1>', async (page) => {
      // Built with the DOM API: the HTML parser would cap the depth itself.
      const depth = await page.evaluate(() => {
        let at: Element = document.body;
        for (let i = 0; i < 2_000; i++) at = at.appendChild(document.createElement('div'));
        at.textContent = 'bottom';
        let n = 0;
        for (let e: Element | null = at; e; e = e.parentElement) n++;
        return n;
      });
      expect(depth).toBeGreaterThan(2_000);
      return readBlocks(page, undefined, VIEW, layoutAt(), 1);
    });
    expect(blocks[0]).toMatchObject({ tag: 'h1', text: 'Top' });
    expect(blocks.map((b) => b.text)).not.toContain('bottom');
  });

  it('a page that lies gets no bad data through: fake boxes, huge or non-string texts, a broken querySelectorAll', async () => {
    const html = `<p id="a">alpha</p><p id="b">beta</p><p class="c">gamma</p>`;
    const blocks = await withPage(html, async (page) => {
      await page.evaluate(() => {
        // Called below with .call(this): the element it is bound to is the one asked.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const real = Element.prototype.getBoundingClientRect;
        Element.prototype.getBoundingClientRect = function (this: Element) {
          if (this.id === 'a') return { x: NaN, y: 0, width: 10, height: 10 } as DOMRect;
          if (this.id === 'b') return { x: 1e308, y: 1e308, width: 1e308, height: 1e308 } as DOMRect;
          return real.call(this);
        };
        document.querySelectorAll = () => {
          throw new Error('no');
        };
        const join = Array.prototype.join;
        Array.prototype.join = function (this: unknown[], sep?: string) {
          const out = join.call(this, sep);
          return out === 'gamma' ? 'g'.repeat(5_000_000) : out;
        };
      });
      return readBlocks(page, undefined, VIEW, layoutAt(), 1);
    });
    // #a: not a number; #b: far outside the image; .c: a text cut to the limit, selector from its path.
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.text).toHaveLength(MAX_BLOCK_CHARS);
    expect(blocks[0]!.selector).toBe('body > p:nth-of-type(3)');
  });
});
