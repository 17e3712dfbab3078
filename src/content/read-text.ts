// JSON and text content read into the lines a capture compares: what the content thread (thread.ts)
// runs. JSON is parsed with its nesting bounded, put through diff.filters' jsonPath filters
// (src/filters/json-path.ts) and printed canonically (canonical-json.ts); a body that was only
// thought to be JSON and does not parse is read as text. Pure, synchronous, bounded by `limits`.
import type { Filter } from '../domain/filters.js';
import { selectJson } from '../filters/json-path.js';
import { canonicalLines } from './canonical-json.js';
import { nestsDeeperThan } from './json-nesting.js';
import { decodeText, textLines } from './text-lines.js';

export interface ReadTextInput {
  kind: 'json' | 'text';
  bytes: Uint8Array;
  charset: string | null;
  filters: Filter[];
  limits: TextReadLimits;
}

export interface TextReadLimits {
  /** JSON nesting deeper than this fails the capture. */
  maxDepth: number;
  /** Lines compared at most; the rest is left out, and the capture says so. */
  maxLines: number;
  /** Characters of one line kept at most. */
  maxLineChars: number;
  /** Lines drawn in the picture. */
  pictureLines: number;
}

/** One compared line: a block without its box (the picture's layout gives it, content-page.ts). */
export interface ReadLine {
  selector: string;
  tag: 'json' | 'line';
  text: string;
}

export interface TextReading {
  /** "json" only when the body parsed as JSON. */
  kind: 'json' | 'text';
  lines: ReadLine[];
  /** Lines as printed, for the picture (at most limits.pictureLines). */
  picture: string[];
  /** Every line, compared or not. */
  total: number;
  /** Indexes of jsonPath filters that selected nothing. */
  missing: number[];
}

/** Thrown for JSON that nests too deeply: the message says so in words. */
export class JsonTooDeep extends Error {}

export function readText(input: ReadTextInput): TextReading {
  const { limits } = input;
  const cap = (s: string) => (s.length > limits.maxLineChars ? `${s.slice(0, limits.maxLineChars)}…` : s);
  const text = decodeText(input.bytes, input.charset);
  if (input.kind === 'json') {
    if (nestsDeeperThan(text, limits.maxDepth))
      throw new JsonTooDeep(`the JSON nests deeper than ${limits.maxDepth} levels, the most a monitor reads`);
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(text);
    } catch {
      parsed = false; // not JSON after all: read as text below
    }
    if (parsed) {
      const selected = selectJson(value, input.filters);
      const { lines, total } = canonicalLines(selected.value, limits.maxLines);
      return {
        kind: 'json',
        lines: lines.map((l) => ({ selector: l.path, tag: 'json', text: cap(l.text) })),
        picture: lines.slice(0, limits.pictureLines).map((l) => cap(l.printed)),
        total,
        missing: selected.missing,
      };
    }
  }
  const { lines, total } = textLines(text, limits.maxLines);
  return {
    kind: 'text',
    lines: lines.map((l) => ({ selector: `line ${l.line}`, tag: 'line', text: cap(l.text) })),
    picture: lines.slice(0, limits.pictureLines).map((l) => cap(l.text)),
    total,
    missing: [],
  };
}
