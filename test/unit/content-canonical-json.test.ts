// Canonical JSON (src/content/canonical-json.ts) and the reading of JSON and text into compared lines
// (src/content/read-text.ts): key order and number spelling make no difference, each line carries its
// JSON path, and every bound (depth, lines, line length) holds at its edge and fails just over it.
import { describe, expect, it } from 'vitest';
import { canonicalJsonText, canonicalLines, compareCodePoints, memberPath } from '../../src/content/canonical-json.js';
import { JsonTooDeep, readText, type TextReadLimits } from '../../src/content/read-text.js';
import { decodeText, textLines } from '../../src/content/text-lines.js';

const LIMITS: TextReadLimits = { maxDepth: 100, maxLines: 10_000, maxLineChars: 2000, pictureLines: 200 };
const read = (kind: 'json' | 'text', body: string | Buffer, limits: Partial<TextReadLimits> = {}) =>
  readText({
    kind,
    bytes: Buffer.isBuffer(body) ? body : Buffer.from(body),
    charset: null,
    filters: [],
    limits: { ...LIMITS, ...limits },
  });

describe('canonical JSON', () => {
  it('sorts keys at every level and prints two-space indentation', () => {
    const text = canonicalJsonText(JSON.parse('{"b":{"y":1,"x":[true,null]},"a":"s"}'));
    expect(text).toBe(
      [
        '{',
        '  "a": "s",',
        '  "b": {',
        '    "x": [',
        '      true,',
        '      null',
        '    ],',
        '    "y": 1',
        '  }',
        '}',
      ].join('\n'),
    );
  });

  it('reordered keys print the same; 1.0, 1 and 1e0 are the same number', () => {
    const a = canonicalJsonText(JSON.parse('{"price":1.0,"name":"x","tags":["a","b"]}'));
    const b = canonicalJsonText(JSON.parse('{"tags":["a","b"],"name":"x","price":1e0}'));
    const c = canonicalJsonText(JSON.parse('{"name":"x","price":1,"tags":["a","b"]}'));
    expect(a).toBe(b);
    expect(a).toBe(c);
    expect(canonicalJsonText(JSON.parse('[0.10, 1E3, -0]'))).toBe('[\n  0.1,\n  1000,\n  0\n]');
  });

  it('array order is kept (it is data)', () => {
    expect(canonicalJsonText([2, 1])).not.toBe(canonicalJsonText([1, 2]));
  });

  it('keys are sorted by code point, not by UTF-16 unit', () => {
    // U+FF61 sorts before U+1F600 by code point; by UTF-16 units (0xD83D) it would come after.
    expect(['\u{1F600}', '\uFF61'].sort(compareCodePoints)).toEqual(['\uFF61', '\u{1F600}']);
    expect(['b', 'a', 'ab', ''].sort(compareCodePoints)).toEqual(['', 'a', 'ab', 'b']);
  });

  it('each line carries the JSON path of its value', () => {
    const { lines } = canonicalLines(JSON.parse('{"items":[{"price":3,"id":"a"}],"x y":{},"e":[]}'), 100);
    expect(lines.map((l) => [l.path, l.text])).toEqual([
      ['$', '{'],
      ['$.e', '"e": []'],
      ['$.items', '"items": ['],
      ['$.items[0]', '{'],
      ['$.items[0].id', '"id": "a"'],
      ['$.items[0].price', '"price": 3'],
      ['$.items[0]', '}'],
      ['$.items', ']'],
      ["$['x y']", '"x y": {}'],
      ['$', '}'],
    ]);
    // The compared text has no trailing comma: appending an item changes no existing line.
    expect(lines[4]!.printed).toBe('      "id": "a",');
  });

  it("names that are not identifiers are bracketed, with ' and \\ escaped", () => {
    expect(memberPath('$', 'a.b')).toBe("$['a.b']");
    expect(memberPath('$', "it's")).toBe("$['it\\'s']");
    expect(memberPath('$', 'back\\slash')).toBe("$['back\\\\slash']");
    expect(memberPath('$', '_ok$1')).toBe('$._ok$1');
    expect(memberPath('$', '1st')).toBe("$['1st']");
  });
});

describe('readText: JSON', () => {
  it('gives one block per line with the JSON path as selector, tag "json"', () => {
    const out = read('json', '{"b":2,"a":[1]}');
    expect(out.kind).toBe('json');
    expect(out.lines).toEqual([
      { selector: '$', tag: 'json', text: '{' },
      { selector: '$.a', tag: 'json', text: '"a": [' },
      { selector: '$.a[0]', tag: 'json', text: '1' },
      { selector: '$.a', tag: 'json', text: ']' },
      { selector: '$.b', tag: 'json', text: '"b": 2' },
      { selector: '$', tag: 'json', text: '}' },
    ]);
  });

  it('nesting at the depth limit is read; one level more is refused with the reason', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(read('json', nested(100)).total).toBe(199); // the innermost [] is one line
    expect(() => read('json', nested(101))).toThrow(JsonTooDeep);
    expect(() => read('json', nested(101))).toThrow('deeper than 100 levels');
    // Brackets inside strings do not count.
    expect(read('json', `["${'['.repeat(500)}"]`).kind).toBe('json');
  });

  it('100,000 levels are refused by a linear scan, quickly', () => {
    const started = performance.now();
    expect(() => read('json', '['.repeat(100_000) + ']'.repeat(100_000))).toThrow(JsonTooDeep);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a body that does not parse is read as text', () => {
    const out = read('json', '{"a": 1,\n oops');
    expect(out.kind).toBe('text');
    expect(out.lines.map((l) => l.selector)).toEqual(['line 1', 'line 2']);
  });

  it('lines: the limit is kept, one more line is counted but not compared', () => {
    const at = read('json', JSON.stringify(Array.from({ length: 9998 }, (_, i) => i))); // [ + 9998 + ]
    expect(at.total).toBe(10_000);
    expect(at.lines).toHaveLength(10_000);
    const over = read('json', JSON.stringify(Array.from({ length: 9999 }, (_, i) => i)));
    expect(over.total).toBe(10_001);
    expect(over.lines).toHaveLength(10_000);
  });

  it('the picture has at most pictureLines lines, as printed (with commas)', () => {
    const out = read('json', '[1,2,3]', { pictureLines: 3 });
    expect(out.picture).toEqual(['[', '  1,', '  2,']);
  });
});

describe('readText: text', () => {
  it('one block per non-blank line, selector "line N" with the file line number, tag "line"', () => {
    const out = read('text', 'first\r\n\r\n  second  \nthird\rfourth\n');
    expect(out.kind).toBe('text');
    expect(out.lines).toEqual([
      { selector: 'line 1', tag: 'line', text: 'first' },
      { selector: 'line 3', tag: 'line', text: '  second' },
      { selector: 'line 4', tag: 'line', text: 'third' },
      { selector: 'line 5', tag: 'line', text: 'fourth' },
    ]);
  });

  it('a line at maxLineChars is kept whole; one character more is cut with an ellipsis', () => {
    expect(read('text', 'x'.repeat(2000)).lines[0]!.text).toBe('x'.repeat(2000));
    expect(read('text', 'x'.repeat(2001)).lines[0]!.text).toBe(`${'x'.repeat(2000)}…`);
  });

  it('20 MiB of empty lines is scanned without building 20 million strings', () => {
    const out = textLines('\n'.repeat(20 * 1024 * 1024), 10);
    expect(out).toEqual({ lines: [], total: 0 });
  });
});

describe('decodeText', () => {
  it('a BOM decides, then the declared charset, then UTF-8', () => {
    expect(decodeText(Buffer.from('\ufeffhé', 'utf8'), 'iso-8859-1')).toBe('hé');
    expect(decodeText(Buffer.from('\ufeffhé', 'utf16le'), null)).toBe('hé');
    expect(decodeText(Buffer.from([0x68, 0xe9]), 'iso-8859-1')).toBe('hé');
    expect(decodeText(Buffer.from('hé'), 'no-such-charset')).toBe('hé');
    expect(decodeText(Buffer.from([0x68, 0xff]), null)).toBe('h\ufffd');
  });
});
