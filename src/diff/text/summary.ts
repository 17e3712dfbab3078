// The one line a person reads first (webhook `summary`): the first text change, with the unchanged
// words around it that make it readable, e.g. "Price: $24.99 → $19.99".
import type { TextChange, WordPart } from '../../domain/capture-findings.js';
import { firstWordPart, lastWordPart, lastWordWithSpace } from '../../domain/trim.js';
import { wordDiff } from './compare.js';

/** Added or removed text shown at most this long. */
const MAX_QUOTE = 80;
/** Each side of a changed passage shown at most this long. */
const MAX_CHANGED = 60;
/** Unchanged words kept before and after the change. */
const WORDS_BEFORE = 4;
const WORDS_AFTER = 3;

/** One line for a person, e.g. "Price: $24.99 → $19.99"; null when there is no text change. */
export function summarize(changes: TextChange[], total: number): string | null {
  const first = changes[0];
  if (!first) return null;
  const more = Math.max(total, changes.length) - 1;
  return lineOf(first) + (more > 0 ? ` (+${more} more)` : '');
}

function lineOf(change: TextChange): string {
  if (change.kind === 'added') return `Added: ${cutEnd(change.after ?? '', MAX_QUOTE)}`;
  if (change.kind === 'removed') return `Removed: ${cutEnd(change.before ?? '', MAX_QUOTE)}`;
  return changedLine(change.words ?? wordDiff(change.before ?? '', change.after ?? ''));
}

/** "prefix before → after suffix", the changed passage widened to whole words. */
export function changedLine(words: WordPart[]): string {
  const first = words.findIndex((p) => p.added || p.removed);
  if (first < 0) return words.map((p) => p.value).join('');
  let last = words.length - 1;
  while (!words[last]!.added && !words[last]!.removed) last--;
  let prefix = words
    .slice(0, first)
    .map((p) => p.value)
    .join('');
  let suffix = words
    .slice(last + 1)
    .map((p) => p.value)
    .join('');
  const middle = words.slice(first, last + 1);
  let old = middle
    .filter((p) => !p.added)
    .map((p) => p.value)
    .join('');
  let now = middle
    .filter((p) => !p.removed)
    .map((p) => p.value)
    .join('');
  // Whole words: "$24.99" → "$19.99" rather than "24" → "19".
  const head = lastWordPart(prefix);
  const tail = firstWordPart(suffix);
  prefix = prefix.slice(0, prefix.length - head.length);
  suffix = suffix.slice(tail.length);
  old = head + old + tail;
  now = head + now + tail;
  // Something inserted or deleted outright reads better with the word before it on both sides.
  if (!old.trim() || !now.trim()) {
    const word = lastWordWithSpace(prefix);
    prefix = prefix.slice(0, prefix.length - word.length);
    old = word + old;
    now = word + now;
  }
  const before = keepLastWords(prefix, WORDS_BEFORE);
  const after = keepFirstWords(suffix, WORDS_AFTER);
  const line = `${before}${cutEnd(old.trim(), MAX_CHANGED)} → ${cutEnd(now.trim(), MAX_CHANGED)}`;
  return after.trim() ? `${line} ${after.trim()}` : line;
}

const cutEnd = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

function keepLastWords(text: string, n: number): string {
  const words = text.split(/(?<=\s)(?=\S)/);
  const kept = words.slice(-n).join('');
  return cutStart(words.length > n ? `…${kept}` : kept, 40);
}

function keepFirstWords(text: string, n: number): string {
  const words = text.trimStart().split(/\s+/).filter(Boolean);
  return cutEnd(words.slice(0, n).join(' ') + (words.length > n ? '…' : ''), 40);
}

const cutStart = (text: string, max: number) =>
  text.length <= max ? text : `…${text.slice(text.length - max + 1).trimStart()}`;
