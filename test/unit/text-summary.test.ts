// summarize: the one line of a monitor.changed webhook.
import { describe, expect, it } from 'vitest';
import type { TextChange } from '../../src/domain/capture-findings.js';
import { wordDiff } from '../../src/diff/text/compare.js';
import { summarize } from '../../src/diff/text/summary.js';

const changed = (before: string, after: string): TextChange => ({
  kind: 'changed',
  before,
  after,
  box: null,
  selector: null,
  words: wordDiff(before, after),
});

describe('summarize', () => {
  it('a price change keeps the label and whole prices', () => {
    expect(summarize([changed('Price: $24.99', 'Price: $19.99')], 1)).toBe('Price: $24.99 → $19.99');
  });

  it('keeps a few unchanged words on each side and shortens the rest with …', () => {
    const before = 'This week only at our shop the blue kettle costs 24 euros while stocks last and not a day longer';
    const after = before.replace('24', '19');
    expect(summarize([changed(before, after)], 1)).toBe('…the blue kettle costs 24 → 19 euros while stocks…');
  });

  it('a word inserted or deleted shows the word before it on both sides', () => {
    expect(summarize([changed('Open daily', 'Open daily except Sunday')], 1)).toBe('Open daily → daily except Sunday');
    expect(summarize([changed('Open daily except Sunday', 'Open daily')], 1)).toBe('Open daily except Sunday → daily');
  });

  it('added and removed blocks are quoted, long ones cut at 80 characters', () => {
    expect(summarize([{ kind: 'added', before: null, after: 'New paragraph', box: null, selector: null }], 1)).toBe(
      'Added: New paragraph',
    );
    const long = 'x'.repeat(200);
    const line = summarize([{ kind: 'removed', before: long, after: null, box: null, selector: null }], 1)!;
    expect(line).toBe(`Removed: ${'x'.repeat(79)}…`);
  });

  it('long changed passages are cut at 60 characters a side', () => {
    const line = summarize([changed('a'.repeat(100), 'b'.repeat(100))], 1)!;
    expect(line).toBe(`${'a'.repeat(59)}… → ${'b'.repeat(59)}…`);
  });

  it('says how many more changes there are, counting those not kept', () => {
    const c = changed('Price: $24.99', 'Price: $19.99');
    expect(summarize([c, c], 2)).toBe('Price: $24.99 → $19.99 (+1 more)');
    expect(summarize([c], 60)).toBe('Price: $24.99 → $19.99 (+59 more)');
  });

  it('works without a stored word diff, and says nothing when there is no change', () => {
    expect(
      summarize([{ kind: 'changed', before: 'Price: $5', after: 'Price: $6', box: null, selector: null }], 1),
    ).toBe('Price: $5 → $6');
    expect(summarize([], 0)).toBeNull();
  });
});
