// withElements: which elements lie behind each changed region.
import { describe, expect, it } from 'vitest';
import type { Region } from '../../src/domain/capture-findings.js';
import { MAX_REGION_ELEMENTS, withElements } from '../../src/diff/region-elements.js';
import type { PageBlock } from '../../src/domain/page-facts.js';

const b = (
  selector: string,
  tag: string,
  text: string,
  x: number,
  y: number,
  width: number,
  height: number,
): PageBlock => ({ selector, tag, text, box: { x, y, width, height } });

const body = b('body', 'body', 'Loose text', 0, 0, 1280, 2000);
const main = b('main', 'main', 'Shop', 0, 0, 1280, 1800);
const card = b('div.card', 'div', 'Blue kettle', 100, 100, 400, 300);
const priceOld = b('div.price', 'div', 'Price: $24.99', 120, 200, 160, 24);
const priceNew = b('div.price', 'div', 'Price: $19.99', 120, 200, 160, 24);
const stock = b('#stock', 'p', 'In stock', 120, 240, 160, 24);
const region: Region = { x: 176, y: 204, width: 60, height: 16, pixels: 300 };

describe('withElements', () => {
  it('names the changed element first, with its text before and after, and leaves page wrappers out', () => {
    const [out] = withElements([region], [body, main, card, priceOld, stock], [body, main, card, priceNew, stock]);
    expect(out).toMatchObject({ ...region });
    expect(out!.elements).toEqual([
      { selector: 'div.price', tag: 'div', before: 'Price: $24.99', after: 'Price: $19.99' },
      { selector: 'div.card', tag: 'div', before: 'Blue kettle', after: 'Blue kettle' },
    ]);
  });

  it('a wrapper is listed when nothing smaller is there', () => {
    const [out] = withElements([{ x: 900, y: 900, width: 10, height: 10 }], [body, main], [body, main]);
    expect(out!.elements!.map((e) => e.selector)).toEqual(['main', 'body']);
  });

  it('an element present on one side only has null on the other', () => {
    const added = b('#promo', 'p', 'Sale!', 600, 100, 200, 40);
    const [out] = withElements([{ x: 610, y: 110, width: 50, height: 20 }], [body], [body, added]);
    expect(out!.elements).toEqual([{ selector: '#promo', tag: 'p', before: null, after: 'Sale!' }]);
  });

  it('an element that moved out of the region on one side still shows its text there', () => {
    const moved = b('#badge', 'span', 'New', 600, 500, 50, 20);
    const [out] = withElements(
      [{ x: 600, y: 100, width: 50, height: 20 }],
      [{ ...moved, box: { x: 600, y: 100, width: 50, height: 20 } }],
      [moved],
    );
    expect(out!.elements).toEqual([{ selector: '#badge', tag: 'span', before: 'New', after: 'New' }]);
  });

  it(`lists at most ${MAX_REGION_ELEMENTS}, and cuts snippets at 120 characters`, () => {
    const rows = Array.from({ length: 7 }, (_, i) =>
      b(`li:nth-of-type(${i + 1})`, 'li', `Row ${i} ${'x'.repeat(200)}`, 0, i * 20, 300, 20),
    );
    const [out] = withElements([{ x: 0, y: 0, width: 300, height: 140 }], rows, rows);
    expect(out!.elements).toHaveLength(5);
    expect(out!.elements![0]!.after).toHaveLength(120);
    expect(out!.elements![0]!.after!.endsWith('…')).toBe(true);
    const exact = b('#exact', 'p', 'y'.repeat(120), 0, 0, 300, 20);
    expect(withElements([{ x: 0, y: 0, width: 10, height: 10 }], [exact], [exact])[0]!.elements![0]!.after).toBe(
      'y'.repeat(120),
    );
    const [five] = withElements([{ x: 0, y: 0, width: 300, height: 100 }], rows, rows);
    expect(five!.elements).toHaveLength(5);
  });

  it('a region over nothing lists nothing; no regions stay no regions; malformed blocks are skipped', () => {
    expect(withElements([{ x: 2000, y: 3000, width: 5, height: 5 }], [card], [card])[0]!.elements).toEqual([]);
    expect(withElements([], [card], [card])).toEqual([]);
    const junk = [
      null,
      { selector: 'p', tag: 'p', text: 'x', box: { x: 'a', y: 0, width: 1, height: 1 } },
    ] as unknown as PageBlock[];
    expect(withElements([region], junk, junk)[0]!.elements).toEqual([]);
  });
});
