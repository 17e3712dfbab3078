// String trims written as loops rather than end-anchored regexes: /\/+$/ and /\S*$/ look simple, but a
// backtracking engine retries them from every start position, so a long run of the repeated character
// followed by anything else costs quadratic time (test/unit/regex-audit.test.ts).

/** The string without the slashes it ends with. */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

const isSpace = (ch: string) => ch.trim() === '';

/** The run of non-whitespace characters the text ends with ('' when it ends in whitespace). */
export function lastWordPart(text: string): string {
  let start = text.length;
  while (start > 0 && !isSpace(text[start - 1]!)) start--;
  return text.slice(start);
}

/** The run of non-whitespace characters the text starts with. */
export function firstWordPart(text: string): string {
  let end = 0;
  while (end < text.length && !isSpace(text[end]!)) end++;
  return text.slice(0, end);
}

/** The last word of the text with the whitespace after it ('' when the text holds no word). */
export function lastWordWithSpace(text: string): string {
  let end = text.length;
  while (end > 0 && isSpace(text[end - 1]!)) end--;
  const word = lastWordPart(text.slice(0, end));
  return word ? text.slice(end - word.length) : '';
}
