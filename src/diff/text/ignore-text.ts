// diff.ignoreText: regular expressions whose matches are blanked out of a page's text before it is
// compared (dates, counters, "updated 5 minutes ago"). They are the user's own code run over text the
// page chose, so they never run on V8's backtracking RegExp, where a pattern such as "(?:a?|b?){27}\b"
// takes seconds (or years) on a short input: they are compiled and run by RE2JS, a port of RE2, whose
// matching time is linear in the text whatever the pattern. RE2 has no backreferences and no lookaround
// (those are what backtracking needs); a pattern using them is refused with a message naming what.
// Text comparison still runs in its own thread under a time limit (compare-in-thread.ts) as a backstop.
// A pattern given as a plain string ignores case (issue 27: "Updated" and "updated" are the same date
// line); `{pattern, flags}` says exactly which flags apply, "" being case-sensitive.
import { RE2JS } from 're2js';
import type { TextPattern } from '../../domain/monitor-settings.js';

/** The flags of a plain-string pattern: ignore case. */
export const DEFAULT_PATTERN_FLAGS = 'i';

/** RE2JS's flag bits for flags written as a string of "i", "m" and "s". */
export function re2Flags(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/** A stored ignoreText entry as pattern and flags: a plain string ignores case. */
export function patternParts(entry: TextPattern): { pattern: string; flags: string } {
  return typeof entry === 'string' ? { pattern: entry, flags: DEFAULT_PATTERN_FLAGS } : entry;
}

/** A pattern compiled on RE2, or why it cannot be: the construct RE2 lacks, or the parser's complaint. */
function compile(pattern: string, flags = ''): RE2JS | { unsupported: string } | { invalid: string } {
  const unsupported = unsupportedSyntax(pattern);
  if (unsupported) return { unsupported };
  try {
    return RE2JS.compile(toRe2Syntax(pattern), re2Flags(flags));
  } catch (err) {
    return { invalid: (err as Error).message.replace(/^error parsing regexp: /, '') };
  }
}

/** Why a pattern cannot be used, or null when it can. */
export function ignoreTextProblem(pattern: string, flags = ''): string | null {
  const compiled = compile(pattern, flags);
  if ('unsupported' in compiled) {
    return (
      `uses ${compiled.unsupported}, which is not supported: patterns run on RE2, which matches in linear time ` +
      'and has no lookahead, lookbehind or backreferences; rewrite it without'
    );
  }
  if ('invalid' in compiled) return `not a valid regular expression: ${compiled.invalid}`;
  // A pattern that matches nothing at all would blank between every two characters.
  if (compiled.test('')) return 'matches the empty string; it must match at least one character';
  return null;
}

/** A stored pattern RE2 cannot compile (saved before patterns ran on RE2): its capture fails, naming it. */
export class IgnoreTextUnusable extends Error {
  constructor(
    readonly index: number,
    readonly problem: string,
  ) {
    super(
      `diff.ignoreText[${index}] ${problem}. Saved before ignoreText patterns ran on RE2, it can no longer be ` +
        `used: PATCH the monitor with a pattern that avoids it`,
    );
    this.name = 'IgnoreTextUnusable';
  }
}

/** The patterns compiled; a pattern that cannot be throws IgnoreTextUnusable naming its index. */
export function compileIgnoreText(patterns: TextPattern[]): RE2JS[] {
  return patterns.map((entry, index) => {
    const { pattern, flags } = patternParts(entry);
    const compiled = compile(pattern, flags);
    if ('unsupported' in compiled)
      throw new IgnoreTextUnusable(index, `uses ${compiled.unsupported}, which RE2 does not support`);
    if ('invalid' in compiled) throw new IgnoreTextUnusable(index, `is not a valid RE2 pattern (${compiled.invalid})`);
    return compiled;
  });
}

/** A pattern compiled with its flags (any of "ims"), or why it cannot be (a stored pattern the schema now refuses). */
export function compileWithFlags(pattern: string, flags: string): RE2JS | { problem: string } {
  const compiled = compile(pattern, flags);
  if ('unsupported' in compiled) return { problem: `uses ${compiled.unsupported}, which RE2 does not support` };
  if ('invalid' in compiled) return { problem: `is not a valid RE2 pattern (${compiled.invalid})` };
  return compiled;
}

/** One pattern compiled with its flags (already checked by ignoreTextProblem); throws when it cannot be. */
export function compileChecked(pattern: string, flags: string): RE2JS {
  const compiled = compileWithFlags(pattern, flags);
  if ('problem' in compiled) throw new Error(compiled.problem);
  return compiled;
}

/** The text with every match of every pattern removed, whitespace collapsed again. */
export function blankIgnored(text: string, patterns: RE2JS[]): string {
  let out = text;
  for (const pattern of patterns) out = pattern.matcher(out).replaceAll(() => ' ');
  return patterns.length ? out.replace(/\s+/g, ' ').trim() : out;
}

/**
 * The first lookaround or backreference in the pattern, named for a person ('a lookahead "(?="'), or
 * null. One pass over the pattern, skipping escaped characters and character classes.
 */
export function unsupportedSyntax(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next >= '1' && next <= '9') return `a backreference "\\${next}"`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'a named backreference "\\k<…>"';
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      if (pattern[i + 1] === ']') i++;
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const kind = LOOKAROUND.find(([opener]) => pattern.startsWith(opener, i));
      if (kind) return `a ${kind[1]} "${kind[0]}"`;
    }
  }
  return null;
}

const LOOKAROUND: [string, string][] = [
  ['(?<=', 'lookbehind'],
  ['(?<!', 'negative lookbehind'],
  ['(?=', 'lookahead'],
  ['(?!', 'negative lookahead'],
];

/** JavaScript's "\uXXXX" spelled as RE2's "\x{XXXX}"; everything else is passed on as written. */
function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') {
      const hex = pattern.slice(i + 2, i + 6);
      if (pattern[i + 1] === 'u' && /^[0-9A-Fa-f]{4}$/.test(hex)) {
        out += `\\x{${hex}}`;
        i += 5;
      } else {
        out += pattern.slice(i, i + 2);
        i++;
      }
    } else out += pattern[i];
  }
  return out;
}
