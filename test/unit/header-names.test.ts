// A PATCH of capture.headers names a stored header in any case (HTTP names are case-insensitive).
import { describe, expect, it } from 'vitest';
import { foldHeaderNames } from '../../src/monitors/header-names.js';
import { mergePatch } from '../../src/http/schemas/monitors.js';

const stored = { url: 'https://example.com/', capture: { headers: { 'X-Token': '••••', Accept: '••••' } } };
const apply = (headers: Record<string, unknown>) =>
  (mergePatch(stored, foldHeaderNames({ capture: { headers } }, Object.keys(stored.capture.headers))) as typeof stored)
    .capture.headers;

describe('header names in a PATCH', () => {
  it('another spelling replaces the stored header, and takes the spelling sent', () => {
    expect(apply({ 'x-token': 'new' })).toEqual({ Accept: '••••', 'x-token': 'new' });
  });

  it('a null in any spelling removes it', () => {
    expect(apply({ 'x-TOKEN': null })).toEqual({ Accept: '••••' });
  });

  it('two spellings in one patch: the last one sent wins, whichever is stored', () => {
    expect(apply({ 'X-Token': null, 'x-token': 'new' })).toEqual({ Accept: '••••', 'x-token': 'new' });
    expect(apply({ 'x-token': 'a', 'X-TOKEN': 'b' })).toEqual({ Accept: '••••', 'X-TOKEN': 'b' });
    expect(apply({ 'x-token': 'a', 'X-Token': 'b' })).toEqual({ Accept: '••••', 'X-Token': 'b' });
  });

  it('leaves other patches alone: no headers, headers null, the same spelling', () => {
    const noHeaders = { name: 'n', capture: { delay: 5 } };
    expect(foldHeaderNames(noHeaders, ['X-Token'])).toBe(noHeaders);
    const removeAll = { capture: { headers: null } };
    expect(foldHeaderNames(removeAll, ['X-Token'])).toBe(removeAll);
    expect(apply({ 'X-Token': 'same' })).toEqual({ 'X-Token': 'same', Accept: '••••' });
  });

  it('keeps a "__proto__" name a plain key (then refused by the schema)', () => {
    const patch = JSON.parse('{"capture":{"headers":{"__proto__":"x"}}}') as unknown;
    const folded = foldHeaderNames(patch, []) as { capture: { headers: object } };
    expect(Object.getPrototypeOf(folded.capture.headers)).toBe(Object.prototype);
    expect(Object.keys(folded.capture.headers)).toEqual(['__proto__']);
  });
});
