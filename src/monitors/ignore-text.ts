// diff.ignoreText: regular expressions whose matches are blanked out of a page's text before it is
// compared (dates, counters, "updated 5 minutes ago"). They are the user's own code run over text the
// page chose, so the schema refuses patterns that do not compile and those safe-regex2 finds
// catastrophic (nested quantifiers); text comparison also runs in its own thread under a time limit
// (text-changes.ts), because no static check catches every slow pattern.
import safeRegex from 'safe-regex2';

/** Patterns are compiled with these flags only: global (every match is blanked), case-sensitive, no `u`. */
export const IGNORE_TEXT_FLAGS = 'g';

/** Why a pattern cannot be used, or null when it can. */
export function ignoreTextProblem(pattern: string): string | null {
  try {
    new RegExp(pattern, IGNORE_TEXT_FLAGS);
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
  // A pattern that matches nothing at all would blank between every two characters.
  if (new RegExp(pattern).test('')) return 'matches the empty string; it must match at least one character';
  if (!safeRegex(pattern))
    return (
      'may take exponential time (nested quantifiers such as "(a+)+"); rewrite it without a repeated group that ' +
      'repeats'
    );
  return null;
}

export function compileIgnoreText(patterns: string[]): RegExp[] {
  return patterns.map((pattern) => new RegExp(pattern, IGNORE_TEXT_FLAGS));
}

/** The text with every match of every pattern removed, whitespace collapsed again. */
export function blankIgnored(text: string, patterns: RegExp[]): string {
  let out = text;
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, ' ');
  }
  return patterns.length ? out.replace(/\s+/g, ' ').trim() : out;
}
