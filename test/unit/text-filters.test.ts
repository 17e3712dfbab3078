// diff.filters' text chain (src/filters/text-filters.ts) over a capture's blocks, each filter shown by a
// pair of inputs that differ only in what it neutralises; ignoreText's case rule; the kept area of
// visual comparison (src/diff/kept-area.ts).
import { describe, expect, it } from 'vitest';
import type { Filter } from '../../src/domain/filters.js';
import type { PageBlock } from '../../src/domain/page-facts.js';
import { applyTextFilters } from '../../src/filters/text-filters.js';
import { filterTextInThread } from '../../src/filters/filter-in-thread.js';
import { missingMessage } from '../../src/filters/filter-names.js';
import { blankIgnored, compileIgnoreText } from '../../src/diff/text/ignore-text.js';
import { diffBlocks } from '../../src/diff/text/compare.js';
import { outsideBoxes, MAX_KEPT_BOXES } from '../../src/diff/kept-area.js';
import { coveredArea } from '../../src/diff/pixels/compare.js';

const block = (text: string, i = 0): PageBlock => ({
  selector: `p:nth-of-type(${i + 1})`,
  tag: 'p',
  text,
  box: { x: 0, y: i * 20, width: 100, height: 20 },
});
const blocks = (...texts: string[]) => texts.map(block);
const texts = (input: PageBlock[], filters: Filter[]) => applyTextFilters(input, filters).blocks.map((b) => b.text);
/** Whether the two pages compare equal after the filters (the text diff reports nothing). */
const same = (a: string[], b: string[], filters: Filter[]) =>
  diffBlocks(applyTextFilters(blocks(...a), filters).blocks, applyTextFilters(blocks(...b), filters).blocks, [])
    .total === 0;

describe('extract', () => {
  it('makes each match a block of its own, keeping the source block’s selector, tag and box', () => {
    const out = applyTextFilters(blocks('Intro', 'A: 10 EUR, B: 12 EUR'), [{ extract: '\\d+ EUR' }]);
    expect(out).toEqual({
      blocks: [
        { ...block('10 EUR', 1), text: '10 EUR' },
        { ...block('12 EUR', 1), text: '12 EUR' },
      ],
      missing: [],
    });
  });

  it('with capture groups, keeps the groups joined by a space', () => {
    expect(texts(blocks('Price: 10,50 €'), [{ extract: '(\\d+),(\\d+)' }])).toEqual(['10 50']);
  });

  it('is case-sensitive unless flags has "i"', () => {
    expect(texts(blocks('PRICE 10'), [{ extract: 'price \\d+' }])).toEqual([]);
    expect(texts(blocks('PRICE 10'), [{ extract: 'price \\d+', flags: 'i' }])).toEqual(['PRICE 10']);
  });

  it('"m" and "s" flags', () => {
    const text = 'first\nsecond';
    expect(texts(blocks(text), [{ extract: '^second' }])).toEqual([]);
    expect(texts(blocks(text), [{ extract: '^second', flags: 'm' }])).toEqual(['second']);
    expect(texts(blocks(text), [{ extract: 'first.second' }])).toEqual([]);
    expect(texts(blocks(text), [{ extract: 'first.second', flags: 's' }])).toEqual([text]);
  });

  it('reports its index when it matches nothing, and the message names it', () => {
    const filters: Filter[] = [{ css: '.x' }, { extract: 'Total: \\d+' }];
    const out = applyTextFilters(blocks('nothing here'), filters);
    expect(out.missing).toEqual([1]);
    expect(missingMessage(filters, out.missing)).toBe('diff.filters[1] (extract "Total: \\\\d+") matched nothing');
  });

  it('neutralises text outside its matches', () => {
    expect(same(['Total: 10 (updated 09:00)'], ['Total: 10 (updated 10:00)'], [{ extract: 'Total: \\d+' }])).toBe(true);
    expect(same(['Total: 10 (updated 09:00)'], ['Total: 11 (updated 09:00)'], [{ extract: 'Total: \\d+' }])).toBe(
      false,
    );
  });

  it('the worst case the limits allow (2,000 blocks, 200,000 characters, 20 extracts each reading all of it) finishes in time', () => {
    const input = Array.from({ length: 2000 }, (_, i) => block(`${'word '.repeat(19)}w${i}`.slice(0, 100), i));
    // Each keeps every block whole, so each of the 20 reads all 200,000 characters again.
    const filters: Filter[] = Array.from({ length: 20 }, () => ({ extract: '(?i)w.+', flags: 's' }));
    const started = performance.now();
    const out = applyTextFilters(input, filters);
    const ms = performance.now() - started;
    expect(out.blocks.map((b) => b.text)).toEqual(input.map((b) => b.text.slice(b.text.indexOf('w'))));
    expect(ms).toBeLessThan(5000); // the thread's limit is 10 s
    console.log(`text filters, worst case: ${Math.round(ms)} ms`);
  });

  it('runs in a thread (dist/) with the same result', async () => {
    const input = blocks('a1 b2', 'c3');
    const filters: Filter[] = [{ extract: '[a-z]\\d' }, { sort: true }];
    expect(await filterTextInThread(input, filters)).toEqual(applyTextFilters(input, filters));
  });
});

describe('unique, sort, dropBlank, ignoreCase, ignoreWhitespace', () => {
  it.each<[string, Filter, string[], string[]]>([
    ['unique', { unique: true }, ['a', 'b', 'a'], ['a', 'b', 'b', 'a']],
    ['sort', { sort: true }, ['b', 'a', 'c'], ['c', 'b', 'a']],
    ['dropBlank', { dropBlank: true }, ['a', '', 'b'], ['a', 'b', '   ']],
    ['ignoreCase', { ignoreCase: true }, ['Price: TEN'], ['price: ten']],
    ['ignoreWhitespace', { ignoreWhitespace: true }, ['12 500 €'], ['12500\u2009€']],
  ])('%s: a pair that differs only in what it neutralises reads the same with it, not without', (_, f, a, b) => {
    expect(texts(blocks(...a), [f])).toEqual(texts(blocks(...b), [f]));
    expect(texts(blocks(...a), [])).not.toEqual(texts(blocks(...b), []));
    // And the comparison agrees (a reordering alone is never a text change: blocks that moved are not).
    expect(same(a, b, [f])).toBe(true);
    if (!('sort' in f)) expect(same(a, b, [])).toBe(false);
  });

  it('a real difference still shows through each of them', () => {
    for (const f of [
      { unique: true },
      { sort: true },
      { dropBlank: true },
      { ignoreCase: true },
      { ignoreWhitespace: true },
    ] as Filter[])
      expect(same(['price 10'], ['price 11'], [f]), JSON.stringify(f)).toBe(false);
  });

  it('run in order: ignoreCase before unique merges case variants, after it does not', () => {
    expect(texts(blocks('A', 'a'), [{ ignoreCase: true }, { unique: true }])).toEqual(['a']);
    expect(texts(blocks('A', 'a'), [{ unique: true }, { ignoreCase: true }])).toEqual(['a', 'a']);
  });

  it('sort orders by code point, keeping each block’s box', () => {
    const out = applyTextFilters(blocks('b', 'B', 'a'), [{ sort: true }]).blocks;
    expect(out.map((b) => [b.text, b.box.y])).toEqual([
      ['B', 20],
      ['a', 40],
      ['b', 0],
    ]);
  });

  it('the page filters and jsonPath are not run here', () => {
    expect(texts(blocks('a'), [{ css: '.x' }, { xpath: '//p' }, { remove: '.y' }, { jsonPath: '$.a' }])).toEqual(['a']);
  });
});

describe('ignoreText case', () => {
  it('a plain string ignores case; {flags: ""} does not', () => {
    expect(blankIgnored('Updated today', compileIgnoreText(['updated']))).toBe('today');
    expect(blankIgnored('Updated today', compileIgnoreText([{ pattern: 'updated', flags: '' }]))).toBe('Updated today');
    expect(blankIgnored('Updated today', compileIgnoreText([{ pattern: 'updated', flags: 'i' }]))).toBe('today');
  });
});

describe('outsideBoxes (visual comparison of a filtered monitor)', () => {
  const W = 200;
  const H = 100;
  /** Whether pixel (x, y) is covered by one of the boxes. */
  const covered = (boxes: { x: number; y: number; width: number; height: number }[], x: number, y: number) =>
    boxes.some((b) => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height);

  it('covers exactly the pixels outside the kept boxes', () => {
    const kept = [
      { x: 10, y: 10, width: 30, height: 20 },
      { x: 30, y: 20, width: 50, height: 40 },
      { x: 150, y: 70, width: 60, height: 40 }, // past the image's edge
    ];
    const out = outsideBoxes(kept, W, H);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) expect(covered(out, x, y), `${x},${y}`).toBe(!covered(kept, x, y));
    // No pixel counted twice.
    expect(coveredArea(out)).toBe(out.reduce((sum, b) => sum + b.width * b.height, 0));
  });

  it('nothing kept: the whole image is left out', () => {
    expect(outsideBoxes([], W, H)).toEqual([{ x: 0, y: 0, width: W, height: H }]);
  });

  it(`over ${MAX_KEPT_BOXES} boxes are merged, never leaving a kept pixel out`, () => {
    const kept = Array.from({ length: 100 }, (_, i) => ({ x: (i * 37) % 190, y: i, width: 5, height: 1 }));
    const out = outsideBoxes(kept, W, H);
    expect(out.length).toBeLessThan(4 * MAX_KEPT_BOXES * MAX_KEPT_BOXES);
    for (const k of kept) expect(covered(out, k.x, k.y)).toBe(false);
  });
});
