// The placeholders of the Markdown behind /docs are Liquid (liquidjs; the syntax is in docs/development.md,
// "The /docs page"), run before Markdown is parsed. A value never becomes Markdown or HTML: Liquid's output
// escape puts a marker the parser passes through as text in its place, and the marker is replaced by the
// escaped value once the HTML exists, so nothing a setting holds can add markup.
import { Drop, Liquid, Tag, type Context, type Emitter, type TagToken, type TopLevelToken } from 'liquidjs';
import type { RenderedDoc } from './docs-markdown.js';
import { bytes, code, duration, hours, html, Markup, type Piece } from './html.js';

/** Values that differ per request (the address the reader reached us at), by name. */
export type RequestValues = Readonly<Record<string, string>>;

/** What a marker stands for: worked out per request, escaped unless it is Markup. */
export type Slot = (request: RequestValues) => Piece;

export interface TemplateSources {
  /** The values known when the page is built (settings and page values), by name. */
  values: Readonly<Record<string, unknown>>;
  /** Names filled in per request instead: no condition or format can use them. */
  requestNames: readonly string[];
  /** Tags that stand for a whole block (they must be a paragraph of their own), with the tag's argument. */
  blocks: Readonly<Record<string, (arg: string, request: RequestValues) => Markup>>;
  /** A file of docs/ by name; `{% include 'file.md#heading' %}` takes that section of it. */
  read(file: string): string;
  /** The text of a Markdown file's section by its heading's anchor (throws if there is none). */
  section(markdown: string, anchor: string, file: string): string;
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
const MARKER = /\uE000(\d+)\uE001/g;
const BLOCK_PARAGRAPH = /<p>\uE000(\d+)\uE001<\/p>/g;
const IN_TAG = 'docs: a placeholder inside a link or heading';

/** A per-request value while the page is built: it can be written out, but nothing can depend on it. */
class PerRequest extends Drop {
  constructor(readonly requestName: string) {
    super();
  }
  override valueOf(): never {
    throw new Error(`docs: ${this.requestName} is per request; no condition or filter on it`);
  }
  override toString(): never {
    return this.valueOf();
  }
  toJSON(): never {
    return this.valueOf();
  }
}

export function expandTemplate(source: string, sources: TemplateSources): Expanded {
  const slots: Slot[] = [];
  const blockSlots = new Set<number>();
  const slot = (fill: Slot) => marker(slots.push(fill) - 1);

  const liquid = new Liquid({
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    outputEscape: (value: unknown) => {
      if (value instanceof PerRequest) return slot((request) => request[value.requestName] ?? '');
      const text = written(value);
      return slot(() => text);
    },
    // Includes name a section of a file of docs/ (`file.md#heading`); there is no other file system.
    relativeReference: false,
    fs: {
      resolve: (_dir, file) => file,
      existsSync: () => true,
      exists: () => Promise.resolve(true),
      readFileSync: (name) => included(name, sources),
      readFile: (name) => Promise.resolve(included(name, sources)),
    },
  });
  // `raw` would put a value into the Markdown unescaped.
  liquid.unregisterFilter('raw');
  for (const [name, format] of Object.entries(FORMATS))
    liquid.registerFilter(name, (value: unknown, ...args: unknown[]) =>
      format(value instanceof PerRequest ? value.valueOf() : value, ...args),
    );
  for (const [name, block] of Object.entries(sources.blocks)) {
    liquid.registerTag(
      name,
      class extends Tag {
        private readonly arg: string;
        constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
          super(token, remain, engine);
          this.arg = token.args.trim();
        }
        render(_ctx: Context, emitter: Emitter): void {
          blockSlots.add(slots.length);
          emitter.write(slot((request) => block(this.arg, request)));
        }
      },
    );
  }

  const perRequest = Object.fromEntries(sources.requestNames.map((name) => [name, new PerRequest(name)]));
  const markdown = liquid.parseAndRenderSync(source, { ...sources.values, ...perRequest }) as string;
  return { markdown, slots, blockSlots };
}

function included(name: string, sources: TemplateSources): string {
  const [file, anchor, ...rest] = name.split('#');
  if (!file || !anchor || rest.length) throw new Error(`docs: an include names a file's section (file.md#heading)`);
  return sources.section(sources.read(file), anchor, file);
}

/**
 * Puts each slot's value in place of its marker. A block's marker must be a paragraph of its own, and no
 * marker may sit inside a tag (an attribute is not text, and escaping for text would not be enough there).
 */
export function fillSlots(rendered: string, expanded: Expanded, request: RequestValues): string {
  return rendered
    .replace(BLOCK_PARAGRAPH, (all, n: string) =>
      expanded.blockSlots.has(Number(n)) ? html`${expanded.slots[Number(n)]!(request)}`.text : all,
    )
    .replace(MARKER, (_all, n: string) => {
      if (expanded.blockSlots.has(Number(n))) throw new Error('docs: a block placeholder inside a paragraph');
      return html`${expanded.slots[Number(n)]!(request)}`.text;
    });
}

/**
 * Throws unless every marker is in the text of the HTML the parser made, once, and in no heading: one inside
 * a tag would be an attribute, one in a link's address comes out percent-encoded, not at all, and a heading's
 * text also makes its id and the table of contents, where no value is put.
 */
export function assertMarkersInText(doc: RenderedDoc, expanded: Expanded): void {
  if (doc.headings.some((text) => text.includes(OPEN))) throw new Error(IN_TAG);
  const rendered = [doc.intro, ...doc.sections.map((s) => s.html)].join('');
  // markdown-it escapes `<` and `>` in text and attributes, so the last one before a marker says where it is.
  for (let at = rendered.indexOf(OPEN); at >= 0; at = rendered.indexOf(OPEN, at + 1))
    if (rendered.lastIndexOf('<', at) > rendered.lastIndexOf('>', at)) throw new Error(IN_TAG);
  const found = [...rendered.matchAll(MARKER)].map((m) => Number(m[1]));
  if (found.length !== expanded.slots.length || new Set(found).size !== found.length) throw new Error(IN_TAG);
}

/** A value as text: a list is joined by commas. */
function written(value: unknown): Piece {
  if (value instanceof Array) return value.map(written).join(', ');
  if (value instanceof Markup) return value;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return String(value);
  throw new Error(`docs: ${shown(value)} is not a value that can be written out`);
}

const shown = (value: unknown) => JSON.stringify(value).slice(0, 60);

const numbers = (value: unknown, filter: string): number[] => {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!list.every((n) => typeof n === 'number'))
    throw new Error(`docs: | ${filter} takes a number or a list of numbers, not ${shown(value)}`);
  return list;
};

const list = (value: unknown, filter: string): unknown[] => {
  if (!Array.isArray(value)) throw new Error(`docs: | ${filter} takes a list, not ${shown(value)}`);
  return value as unknown[];
};

/** Liquid filters: `| bytes`, `| duration` (or `| duration: 'seconds'`), `| hours`, `| count: 'one', 'many'`
 * and `| codes` (a list as code, or "none"). A list of numbers is formatted item by item. */
const FORMATS: Readonly<Record<string, (value: unknown, ...args: unknown[]) => Piece>> = {
  bytes: (value) => numbers(value, 'bytes').map(bytes).join(', '),
  duration: (value, unit) => {
    if (unit !== undefined && unit !== 'seconds') throw new Error(`docs: | duration: 'seconds', not ${shown(unit)}`);
    const scale = unit === 'seconds' ? 1000 : 1;
    return numbers(value, 'duration')
      .map((n) => duration(n * scale))
      .join(', ');
  },
  hours: (value) => numbers(value, 'hours').map(hours).join(', '),
  count: (value, one, many) => {
    const items = list(value, 'count');
    if (typeof one !== 'string' || typeof many !== 'string') throw new Error(`docs: | count: 'one', 'many'`);
    return `${items.length} ${items.length === 1 ? one : many}`;
  },
  codes: (value) => {
    const items = list(value, 'codes');
    return items.length ? html`${items.map((item, i) => html`${i ? ', ' : ''}${code(written(item))}`)}` : 'none';
  },
};
