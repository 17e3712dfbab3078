// The first number in an element's text, read with the separators of the element's locale, for the
// number rules of notifyWhen ("1.299,00 €" on a German page is 1299, "1.299" on an English one 1.299).
// Intl only formats numbers, it does not parse them: Intl.NumberFormat(locale).formatToParts tells us
// the locale's group and decimal characters, and the reading itself is done here. Pages often declare
// the wrong language (or none), so a reading that does not account for the whole number falls back to
// a heuristic that guesses the separators from the number itself (see readByShape).

/**
 * Separators that only ever group digits. Text is read with every space (NBSP, narrow NBSP, thin space...)
 * as " " and every apostrophe as "'", so "1 299" and "1’299" read whatever character the page used.
 */
const SPACE = ' ';
const APOSTROPHE = "'";
const ARABIC_GROUP = '\u066C';
const ARABIC_DECIMAL = '\u066B';

/**
 * A number: digit runs joined by single separators. A space joins only when exactly three digits follow
 * it ("1 299,00" is one number, "2 10" two), since a space between two numbers is far more common than
 * a thousands separator before fewer digits.
 */
const NUMBER_TOKEN = /\d+(?:(?:[.,'\u066B\u066C]| (?=\d{3}(?!\d)))\d+)*/;
/** Longer runs of digits and separators are not read as a number (null): none is written that long. */
export const MAX_NUMBER_CHARS = 64;
/** A minus sign right before the number (or before a currency symbol before it), not part of a word ("SKU-12"). */
const MINUS_BEFORE = /(?:^|[^\p{L}\p{N}])[-\u2212] ?(?:\p{Sc} ?)?$/u;

/** How a number is written: the characters that group digits, and the decimal mark (null: none). */
interface Separators {
  groups: ReadonlySet<string>;
  decimal: string | null;
}

interface Reading {
  value: number;
  whole: boolean;
}

/**
 * The first number in `text`, read with the separators of `locale` (a BCP 47 tag such as "de-CH");
 * with no usable locale, or when the locale's reading stops before the end of the number, the
 * separators are guessed from the number's shape. null when the text holds no number, or a run of digits
 * and separators longer than MAX_NUMBER_CHARS.
 */
export function firstNumber(text: string, locale?: string | null): number | null {
  const ascii = normalizeSeparators(asciiDigits(text));
  const start = ascii.search(/\d/);
  if (start < 0) return null;
  // Read within a bounded window: no real number is that long, and a hostile page could send 2,000 characters of
  // "1,1,1".
  const token = NUMBER_TOKEN.exec(ascii.slice(start, start + MAX_NUMBER_CHARS + 1))![0];
  if (token.length > MAX_NUMBER_CHARS) return null;
  const bySeparators = locale ? localeSeparators(locale) : null;
  let reading = bySeparators ? read(token, bySeparators) : null;
  if (!reading?.whole) {
    const byShape = read(token, readByShape(token));
    if (!reading || byShape.whole) reading = byShape;
  }
  if (!Number.isFinite(reading.value)) return null; // cannot happen within MAX_NUMBER_CHARS; kept as a guard
  const negative = MINUS_BEFORE.test(ascii.slice(Math.max(0, start - 8), start));
  return negative && reading.value !== 0 ? -reading.value : reading.value;
}

/**
 * The heuristic used without a locale (documented): spaces and apostrophes group digits. When both "."
 * and "," occur, the last one is the decimal mark and the other groups. When only one of them occurs:
 * more than once, it groups ("1,299,999"); once, it is the decimal mark if spaces or apostrophes also
 * group, or if fewer or more than three digits follow it, or if it follows a lone 0 or more than three
 * digits ("19,99", "0.125", "1 299,5"); otherwise (exactly three digits after 1–3 digits: "1.299",
 * "1,299") it groups.
 */
export function readByShape(token: string): Separators {
  const { runs, seps } = split(token);
  const groups = new Set<string>([SPACE, APOSTROPHE, ARABIC_GROUP]);
  const marks = seps.filter((s) => s === '.' || s === ',');
  const kinds = new Set(marks);
  if (kinds.size === 2) {
    const decimal = marks[marks.length - 1]!;
    groups.add(decimal === '.' ? ',' : '.');
    return { groups, decimal };
  }
  if (kinds.size === 0) return { groups, decimal: ARABIC_DECIMAL };
  const mark = marks[0]!;
  if (marks.length > 1) {
    groups.add(mark);
    return { groups, decimal: ARABIC_DECIMAL };
  }
  const at = seps.indexOf(mark);
  const before = runs[at]!;
  const after = runs[at + 1]!;
  const spacedOrQuoted = seps.some((s) => s === SPACE || s === APOSTROPHE);
  const looksGrouped = !spacedOrQuoted && after.length === 3 && at === 0 && before !== '0' && before.length <= 3;
  if (looksGrouped) {
    groups.add(mark);
    return { groups, decimal: ARABIC_DECIMAL };
  }
  return { groups, decimal: mark };
}

/**
 * Reads the token from its start: digit groups while the separator is a group mark and the groups are
 * well formed (threes, or Indian twos ending in a three: "1,29,999"), then a decimal part.
 * `whole`: the reading used the entire token.
 */
function read(token: string, { groups, decimal }: Separators): Reading {
  const { runs, seps } = split(token);
  let grouped = 0;
  while (grouped < seps.length && groups.has(seps[grouped]!)) grouped++;
  // The longest well-formed prefix of the groups ("1,25" in en-US is 1, not 125).
  const kept = wellFormedPrefix(runs.slice(1, grouped + 1));
  let digits = runs.slice(0, kept + 1).join('');
  let used = kept + 1;
  if (kept === grouped && kept < seps.length && seps[kept] === decimal) {
    digits += `.${runs[kept + 1]!}`;
    used++;
  }
  return { value: Number(digits), whole: used === runs.length };
}

/**
 * How many of the groups, from the first, are well formed: threes ("1,299,999") or Indian twos then a three
 * ("1,29,999").
 */
function wellFormedPrefix(groups: string[]): number {
  let threes = 0;
  while (threes < groups.length && groups[threes]!.length === 3) threes++;
  let twos = 0;
  while (twos < groups.length && groups[twos]!.length === 2) twos++;
  const indian = twos > 0 && groups[twos]?.length === 3 ? twos + 1 : 0;
  return Math.max(threes, indian);
}

function split(token: string): { runs: string[]; seps: string[] } {
  const runs: string[] = [];
  const seps: string[] = [];
  for (const [, run, sep] of token.matchAll(/(\d+)|(\D)/gu)) {
    if (run !== undefined) runs.push(run);
    else seps.push(sep!);
  }
  return { runs, seps };
}

const schemes = new Map<string, Separators | null>();
const MAX_CACHED_LOCALES = 200;

/**
 * The group and decimal characters of a locale, from Intl; null for a tag that is not valid or that
 * Intl does not know (it would silently fall back to the default locale). A locale that groups with a
 * space accepts any space (pages write NBSP, narrow NBSP or a plain space), one that groups with an
 * apostrophe accepts either apostrophe ("1'299" and "1’299" in de-CH).
 */
export function localeSeparators(locale: string): Separators | null {
  if (schemes.has(locale)) return schemes.get(locale)!;
  let scheme: Separators | null = null;
  try {
    if (Intl.NumberFormat.supportedLocalesOf(locale).length > 0) {
      const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(1234567.5);
      const group = parts.find((p) => p.type === 'group')?.value;
      const decimal = parts.find((p) => p.type === 'decimal')?.value ?? null;
      const groups = new Set<string>(group === undefined ? [] : [normalizeSeparators(group)]);
      scheme = { groups, decimal };
    }
  } catch {
    scheme = null; // not a well-formed language tag
  }
  if (schemes.size >= MAX_CACHED_LOCALES) schemes.clear(); // tags come from pages: keep the cache bounded
  schemes.set(locale, scheme);
  return scheme;
}

function normalizeSeparators(text: string): string {
  return text.replace(/\p{Zs}/gu, SPACE).replace(/[\u2019\u02BC]/g, APOSTROPHE);
}

/**
 * Decimal digits of any script as ASCII ("٢٤٫٩٩" → "24٫99"). Unicode encodes every set of decimal digits
 * (category Nd) as a run of ten code points from 0 to 9, so a digit's value is its distance from the
 * start of its run, modulo 10 (some sets sit back to back).
 */
function asciiDigits(text: string): string {
  return text.replace(/\p{Nd}/gu, (d) => {
    const code = d.codePointAt(0)!;
    if (code <= 0x39) return d;
    let value = digitValues.get(code);
    if (value === undefined) {
      let start = code;
      while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
      value = String((code - start) % 10);
      digitValues.set(code, value); // bounded: Unicode has under a thousand decimal digits
    }
    return value;
  });
}

const digitValues = new Map<number, string>();
