// diff.filters' text filters over a capture's text blocks, in the list's order: extract (an RE2 regular
// expression: each match becomes a block), unique, sort, dropBlank, ignoreCase and ignoreWhitespace.
// Pure and synchronous; run in a thread when it holds user regexes (filter-in-thread.ts). The page
// filters (css, xpath, remove) already ran in the page and jsonPath on the JSON document: they are
// skipped here. What comes out is what is stored and compared, so ignoreCase and ignoreWhitespace change
// the text itself (the compared form), and later filters (unique, sort) see that form.
import type { Filter } from '../domain/filters.js';
import type { PageBlock } from '../domain/page-facts.js';
import { compileChecked } from '../diff/text/ignore-text.js';
import type { RE2JS } from 're2js';
import { filterLabel } from './filter-names.js';

/** At most this many blocks come out of an extract (as many as a page's text has; the rest is dropped). */
export const MAX_FILTERED_BLOCKS = 2000;
/** ... and at most this many characters in all (as a page's text). */
export const MAX_FILTERED_CHARS = 200_000;

export interface FilteredText {
  blocks: PageBlock[];
  /** Indexes in diff.filters of extract filters that matched nothing. */
  missing: number[];
}

/** Whether the list holds a filter that runs here (else the blocks are what the page filters left). */
export function hasTextFilters(filters: readonly Filter[]): boolean {
  return filters.some(
    (f) =>
      'extract' in f ||
      'unique' in f ||
      'sort' in f ||
      'dropBlank' in f ||
      'ignoreCase' in f ||
      'ignoreWhitespace' in f,
  );
}

/** Whether a thread is needed: only extract runs user code (an RE2 pattern over the page's text). */
export function hasUserPatterns(filters: readonly Filter[]): boolean {
  return filters.some((f) => 'extract' in f);
}

/** A filter's pattern that cannot be compiled (a stored one RE2 refuses): the capture fails, naming it. */
export class ExtractUnusable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractUnusable';
  }
}

export function applyTextFilters(blocks: readonly PageBlock[], filters: readonly Filter[]): FilteredText {
  let out = blocks.slice();
  const missing: number[] = [];
  filters.forEach((filter, index) => {
    if ('extract' in filter) {
      let pattern: RE2JS;
      try {
        pattern = compileChecked(filter.extract, filter.flags ?? '');
      } catch (err) {
        throw new ExtractUnusable(`${filterLabel(filters, index)} ${(err as Error).message}`);
      }
      out = extract(out, pattern);
      if (out.length === 0) missing.push(index);
    } else if ('unique' in filter) {
      const seen = new Set<string>();
      out = out.filter((block) => !seen.has(block.text) && seen.add(block.text));
    } else if ('sort' in filter) {
      // By code point (not locale): the same order on every server; Array.prototype.sort is stable.
      out = out.slice().sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    } else if ('dropBlank' in filter) {
      out = out.filter((block) => block.text.trim() !== '');
    } else if ('ignoreCase' in filter) {
      out = out.map((block) => ({ ...block, text: block.text.toLowerCase() }));
    } else if ('ignoreWhitespace' in filter) {
      // Every white space character goes: "12 500 €" and "12500 €" (or a thin space) compare equal.
      out = out.map((block) => ({ ...block, text: block.text.replace(/\s+/gu, '') }));
    }
  });
  return { blocks: out, missing };
}

/**
 * Each match of the pattern in each block, as a block of its own keeping the source block's selector,
 * tag and box: the whole match, or with capture groups the groups that took part, joined by a space.
 */
function extract(blocks: readonly PageBlock[], pattern: RE2JS): PageBlock[] {
  const out: PageBlock[] = [];
  let chars = 0;
  for (const block of blocks) {
    const matcher = pattern.matcher(block.text);
    const groups = matcher.groupCount();
    while (matcher.find()) {
      const whole = matcher.group() ?? '';
      // An empty match (a pattern such as "\b") says nothing; find() moves on past it.
      if (whole === '') continue;
      const text =
        groups === 0
          ? whole
          : Array.from({ length: groups }, (_, g) => matcher.group(g + 1))
              .filter((part): part is string => part !== null && part !== '')
              .join(' ');
      if (out.length >= MAX_FILTERED_BLOCKS || chars + text.length > MAX_FILTERED_CHARS) return out;
      chars += text.length;
      out.push({ selector: block.selector, tag: block.tag, text, box: block.box });
    }
  }
  return out;
}
