// The text blocks of two captures compared, block by block (jsdiff's diffArrays over the block texts)
// and word by word inside a changed block (diffWords). Pure and synchronous: compareTexts runs it in
// a thread of its own (compare-in-thread.ts), since ignoreText patterns are user code.
import { diffArrays, diffWords } from 'diff';
import { MAX_TEXT_CHANGES, type TextChange, type WordPart } from '../../domain/capture-findings.js';
import type { Box } from '../../domain/geometry.js';
import type { PageBlock } from '../../domain/page-facts.js';
import type { TextPattern } from '../../domain/monitor-settings.js';
import type { RE2JS } from 're2js';
import { blankIgnored, compileIgnoreText } from './ignore-text.js';

export interface TextComparison {
  changes: TextChange[];
  total: number;
}

/**
 * diffArrays gives up past this many inserted plus deleted blocks (Myers' algorithm costs O((N+M)·D)):
 * the two lists are then taken as "all of the old removed, all of the new added", and the steps below
 * still find the blocks that stayed (as "moved") and pair the rest in order, so little is lost.
 */
export const MAX_BLOCK_EDITS = 200;
/**
 * diffWords gives up past this many inserted plus deleted words: the whole text is then one removed and one added part.
 */
export const MAX_WORD_EDITS = 100;

interface Comparable {
  text: string;
  box: Box | null;
  selector: string | null;
}

/** The blocks that take part: those with text left once ignoreText is blanked; anything malformed is skipped. */
function comparable(blocks: unknown, patterns: RE2JS[]): Comparable[] {
  if (!Array.isArray(blocks)) return [];
  const out: Comparable[] = [];
  for (const b of blocks as unknown[]) {
    if (b === null || typeof b !== 'object') continue;
    const { text, box, selector } = b as Record<string, unknown>;
    if (typeof text !== 'string') continue;
    const blanked = blankIgnored(text, patterns);
    if (!blanked) continue;
    out.push({ text: blanked, box: isBox(box) ? box : null, selector: typeof selector === 'string' ? selector : null });
  }
  return out;
}

const isBox = (b: unknown): b is Box =>
  b !== null &&
  typeof b === 'object' &&
  ['x', 'y', 'width', 'height'].every((k) => Number.isFinite((b as Record<string, unknown>)[k]));

/**
 * Added, removed and changed blocks in reading order (of this capture; a removed block where it was).
 * A removed block next to an added one is one "changed" block; a block whose text reappears elsewhere
 * only moved, which is not a text change. Keeps MAX_TEXT_CHANGES; `total` counts them all.
 */
export function diffBlocks(before: PageBlock[], after: PageBlock[], ignoreText: TextPattern[]): TextComparison {
  const patterns = compileIgnoreText(ignoreText);
  const a = comparable(before, patterns);
  const b = comparable(after, patterns);
  const parts = diffArrays(
    a.map((x) => x.text),
    b.map((x) => x.text),
    { maxEditLength: MAX_BLOCK_EDITS },
  ) ?? [
    { value: a.map((x) => x.text), removed: true, added: false, count: a.length },
    { value: b.map((x) => x.text), removed: false, added: true, count: b.length },
  ];

  // Runs of removed and added blocks between unchanged ones, as indexes into a and b.
  const runs: { removed: number[]; added: number[] }[] = [];
  let i = 0;
  let j = 0;
  let run: { removed: number[]; added: number[] } | undefined;
  for (const part of parts) {
    const n = part.value.length;
    if (!part.added && !part.removed) {
      run = undefined;
      i += n;
      j += n;
      continue;
    }
    if (!run) runs.push((run = { removed: [], added: [] }));
    for (let k = 0; k < n; k++) {
      if (part.removed) run.removed.push(i++);
      else run.added.push(j++);
    }
  }

  // A text removed in one place and added in another moved: neither counts.
  const addedByText = new Map<string, number[]>();
  for (const r of runs)
    for (const k of r.added) addedByText.set(b[k]!.text, [...(addedByText.get(b[k]!.text) ?? []), k]);
  const moved = { removed: new Set<number>(), added: new Set<number>() };
  for (const r of runs) {
    for (const k of r.removed) {
      const same = addedByText.get(a[k]!.text);
      if (same?.length) {
        moved.removed.add(k);
        moved.added.add(same.shift()!);
      }
    }
  }

  const changes: TextChange[] = [];
  let total = 0;
  const keep = (change: () => TextChange) => {
    if (total++ < MAX_TEXT_CHANGES) changes.push(change());
  };
  for (const r of runs) {
    const removed = r.removed.filter((k) => !moved.removed.has(k));
    const added = r.added.filter((k) => !moved.added.has(k));
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const old = removed[k] === undefined ? undefined : a[removed[k]!]!;
      const now = added[k] === undefined ? undefined : b[added[k]!]!;
      if (old && now) {
        keep(() => ({
          kind: 'changed',
          before: old.text,
          after: now.text,
          box: now.box,
          selector: now.selector,
          words: wordDiff(old.text, now.text),
        }));
      } else if (old) {
        keep(() => ({ kind: 'removed', before: old.text, after: null, box: old.box, selector: old.selector }));
      } else if (now) {
        keep(() => ({ kind: 'added', before: null, after: now.text, box: now.box, selector: now.selector }));
      }
    }
  }
  return { changes, total };
}

/** jsdiff's word diff in the stored shape: only `added`/`removed` flags that are set. */
export function wordDiff(before: string, after: string): WordPart[] {
  const parts = diffWords(before, after, { maxEditLength: MAX_WORD_EDITS }) ?? [
    { value: before, removed: true, added: false },
    { value: after, removed: false, added: true },
  ];
  return parts.map((p) => ({
    value: p.value,
    ...(p.added && { added: true as const }),
    ...(p.removed && { removed: true as const }),
  }));
}
