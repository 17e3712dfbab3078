// The placeholders of the Markdown behind /docs (the syntax is in docs/development.md, "The /docs page").
// They are expanded before Markdown is parsed, in this order: includes, then conditions, then values. A
// value never becomes Markdown or HTML: it is replaced by a marker the parser passes through as text, and
// the marker by the escaped value once the HTML exists, so nothing a setting holds can add markup.
import { bytes, code, duration, hours, html, type Markup, type Piece } from './html.js';

/** Values that differ per request (the address the reader reached us at), by name. */
export type RequestValues = Readonly<Record<string, string>>;

/** What a placeholder stands for: worked out per request, escaped unless it is Markup. */
export type Slot = (request: RequestValues) => Piece;

export interface TemplateSources {
  /** A value known when the page is built (a setting by its path, or a page value); throws if unknown. */
  value(name: string): unknown;
  /** Names looked up in the request's values instead. */
  requestNames: readonly string[];
  /** Placeholders that stand for a whole block (they must be a paragraph of their own). */
  blocks: Readonly<Record<string, (arg: string, request: RequestValues) => Markup>>;
  /** Another Markdown file of docs/ by name, for includes. */
  read(file: string): string;
}

export interface Expanded {
  /** Markdown with a marker where each value goes. */
  markdown: string;
  slots: Slot[];
  /** The indexes of slots that are blocks. */
  blockSlots: Set<number>;
}

// Private-use characters: no meaning to Markdown, never in our prose.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const marker = (index: number) => `${OPEN}${index}${CLOSE}`;
const MARKER = new RegExp(`${OPEN}(\\d+)${CLOSE}`, 'g');
const IN_TAG = 'docs: a placeholder inside a link or heading';

const INCLUDE = /^\{\{include ([a-z0-9-]+\.md)#([a-z0-9-]+)\}\}$/gm;
/** A condition with none inside it: nested ones are decided from the inside out. */
const CONDITION = /\{\{#(if|unless) ([^}]+)\}\}((?:(?!\{\{#)[\s\S])*?)\{\{\/\1\}\}/g;
const PLACEHOLDER = /\{\{([^{}]+)\}\}/g;

export function expandTemplate(markdown: string, sources: TemplateSources): Expanded {
  const included = markdown.replace(INCLUDE, (_all, file: string, anchor: string) =>
    sectionBody(sources.read(file), anchor, file),
  );
  let decided = included;
  for (let before = ''; before !== decided;) {
    before = decided;
    decided = decided.replace(CONDITION, (_all, kind: string, test: string, body: string) => {
      const [then, otherwise = '', ...more] = body.split('{{else}}');
      if (more.length) throw new Error(`docs: two {{else}} in one condition (${test})`);
      return conditionHolds(test.trim(), sources) === (kind === 'if') ? then! : otherwise;
    });
  }
  const slots: Slot[] = [];
  const blockSlots = new Set<number>();
  const filled = decided.replace(PLACEHOLDER, (_all, inner: string) => {
    const [name, ...args] = inner.trim().split(/\s+/) as [string, ...string[]];
    const block = sources.blocks[name];
    if (block) blockSlots.add(slots.length);
    slots.push(block ? (request) => block(args.join(' '), request) : valueSlot(name, args, sources));
    return marker(slots.length - 1);
  });
  // A heading's text also makes its id and the table of contents, where no value is put.
  if (new RegExp(`^#{1,6} .*${OPEN}`, 'm').test(filled)) throw new Error(IN_TAG);
  const stray = /\{\{[^\n]*/.exec(filled);
  if (stray) throw new Error(`docs: a placeholder that is not one: ${stray[0].slice(0, 60)}`);
  return { markdown: filled, slots, blockSlots };
}

/**
 * Puts each slot's value in place of its marker. A block's marker must be a paragraph of its own, and no
 * marker may sit inside a tag (an attribute is not text, and escaping for text would not be enough there).
 */
export function fillSlots(rendered: string, expanded: Expanded, request: RequestValues): string {
  return rendered
    .replace(new RegExp(`<p>${OPEN}(\\d+)${CLOSE}</p>`, 'g'), (all, n: string) =>
      expanded.blockSlots.has(Number(n)) ? html`${expanded.slots[Number(n)]!(request)}`.text : all,
    )
    .replace(MARKER, (_all, n: string) => {
      if (expanded.blockSlots.has(Number(n))) throw new Error('docs: a block placeholder inside a paragraph');
      return html`${expanded.slots[Number(n)]!(request)}`.text;
    });
}

/**
 * Throws unless every marker is in the text of the HTML the parser made (`parts`), once: one inside a tag
 * would be an attribute, and one in a link's address comes out percent-encoded, not at all.
 */
export function assertMarkersInText(parts: readonly string[], expanded: Expanded): void {
  const rendered = parts.join('');
  if (new RegExp(`<[^>]*${OPEN}`).test(rendered)) throw new Error(IN_TAG);
  const found = [...rendered.matchAll(MARKER)].map((m) => Number(m[1]));
  if (found.length !== expanded.slots.length || new Set(found).size !== found.length) throw new Error(IN_TAG);
}

/** The text of a file's section, from below its heading to the next heading of any level. */
function sectionBody(markdown: string, anchor: string, file: string): string {
  const lines = markdown.split('\n');
  let inFence = false;
  let start = -1;
  const seen = new Map<string, number>();
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('```')) inFence = !inFence;
    if (inFence || !/^#{1,6} /.test(line)) continue;
    if (start >= 0) return lines.slice(start, i).join('\n').trim();
    if (githubSlug(line.replace(/^#+ /, ''), seen) === anchor) start = i + 1;
  }
  if (start >= 0) return lines.slice(start).join('\n').trim();
  throw new Error(`docs: ${file} has no heading #${anchor}`);
}

/** GitHub's anchor for a heading: code marks dropped, lower case, punctuation dropped, repeats numbered. */
export function githubSlug(text: string, seen: Map<string, number>): string {
  const base = text
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  return n ? `${base}-${n}` : base;
}

/** `path` (true when set: not false, 0, empty or an empty list) or `path is value`. */
function conditionHolds(test: string, sources: TemplateSources): boolean {
  const [name, is, expected, ...rest] = test.split(/\s+/);
  if (rest.length || (is !== undefined && (is !== 'is' || expected === undefined)))
    throw new Error(`docs: a condition is "name" or "name is value", not "${test}"`);
  if (sources.requestNames.includes(name!)) throw new Error(`docs: ${name} is per request; no condition on it`);
  const value = sources.value(name!);
  if (is) return String(value) === expected;
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** Formats: `{{name}}`, `{{bytes name}}`, `{{duration name [seconds]}}`, `{{hours name}}`,
 * `{{count name one many}}` and `{{codes name}}` (a list as code, or "none"). */
function valueSlot(name: string, args: string[], sources: TemplateSources): Slot {
  const [format, ...rest] = FORMATS[name] ? [name, ...args] : [undefined, name, ...args];
  const [path, ...options] = rest as [string, ...string[]];
  if (path === undefined) throw new Error(`docs: {{${name}}} names no value`);
  if (sources.requestNames.includes(path)) {
    if (format || options.length) throw new Error(`docs: {{${path}}} takes no format`);
    return (request) => request[path] ?? '';
  }
  const value = sources.value(path);
  const formatted = format ? FORMATS[format]!(value, options, path) : plain(value, path);
  return () => formatted;
}

function plain(value: unknown, path: string): string {
  if (Array.isArray(value)) return value.map((v) => plain(v, path)).join(', ');
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return String(value);
  throw new Error(`docs: {{${path}}} is not a value that can be written out`);
}

const numbers = (value: unknown, path: string): number[] => {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!list.every((n) => typeof n === 'number')) throw new Error(`docs: {{${path}}} is not a number`);
  return list;
};

const FORMATS: Readonly<Record<string, (value: unknown, options: string[], path: string) => Piece>> = {
  bytes: (value, _options, path) => numbers(value, path).map(bytes).join(', '),
  duration: (value, [unit], path) =>
    numbers(value, path)
      .map((n) => duration(unit === 'seconds' ? n * 1000 : n))
      .join(', '),
  hours: (value, _options, path) => numbers(value, path).map(hours).join(', '),
  count: (value, [one, many], path) => {
    if (!Array.isArray(value) || !one || !many) throw new Error(`docs: {{count ${path} one many}} counts a list`);
    return `${value.length} ${value.length === 1 ? one : many}`;
  },
  codes: (value, _options, path) => {
    if (!Array.isArray(value)) throw new Error(`docs: {{codes ${path}}} needs a list`);
    return value.length ? value.map((item, i) => html`${i ? ', ' : ''}${code(plain(item, path))}`) : 'none';
  },
};
