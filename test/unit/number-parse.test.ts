import { describe, expect, it } from 'vitest';
import { firstNumber, localeSeparators, MAX_NUMBER_CHARS } from '../../src/domain/number-parse.js';

const NBSP = '\u00A0';
const NNBSP = '\u202F';

describe("firstNumber with the element's locale", () => {
  it.each([
    // [locale, text, number]
    ['en-US', '$1,299.00', 1299],
    ['en-US', '$24.99', 24.99],
    ['en-US', 'Total: $1,234,567.89 incl. tax', 1234567.89],
    ['en-US', '1.299', 1.299], // a bare "1.299" is one and a bit in English
    ['en-US', '1,299', 1299],
    ['en-US', '1,25,5', 1], // not well-formed groups, in either reading: the number ends before them
    ['en', '0.5 kg', 0.5],
    ['de-DE', '1.299,00 €', 1299],
    ['de-DE', '24,99 €', 24.99],
    ['de-DE', '1.299', 1299], // a bare "1.299" is one thousand two hundred ninety-nine in German
    ['de-DE', '1.234.567,5', 1234567.5],
    ['de', 'Preis: 19,99 EUR', 19.99],
    ['fr-FR', `1${NNBSP}299,00${NBSP}€`, 1299], // what Intl itself writes: narrow NBSP groups
    ['fr-FR', `1${NBSP}299,00 €`, 1299], // pages often write NBSP
    ['fr-FR', '1 299,00 €', 1299], // or a plain space
    ['fr-FR', '12,5 %', 12.5],
    ['de-CH', "CHF 1'299.00", 1299],
    ['de-CH', 'CHF 1\u2019299.50', 1299.5], // the typographic apostrophe Intl uses in some versions
    ['de-CH', '1.299', 1.299],
    ['en-IN', '₹1,29,999', 129999],
    ['en-IN', '₹12,34,567.50', 1234567.5],
    ['en-IN', '₹999', 999],
    ['ar-EG', '٢٤٫٩٩ ج.م', 24.99], // Arabic-Indic digits and the Arabic decimal separator
    ['ar-EG', '١٬٢٩٩٫٠٠', 1299],
    ['ru-RU', `1${NBSP}299,99 ₽`, 1299.99],
    ['pt-BR', 'R$ 1.299,90', 1299.9],
  ])('%s reads "%s" as %d', (locale, text, expected) => {
    expect(firstNumber(text, locale)).toBe(expected);
  });

  it('falls back to the shape of the number when the page declares the wrong language', () => {
    // A German shop whose <html lang="en"> is a template default.
    expect(firstNumber('1.299,00 €', 'en-US')).toBe(1299);
    expect(firstNumber('24,99 €', 'en-US')).toBe(24.99);
    expect(firstNumber('1,25', 'en-US')).toBe(1.25); // "25" is no group in English, so "," must be a decimal mark
    // An English price on a page declared German.
    expect(firstNumber('$1,299.00', 'de-DE')).toBe(1299);
    // Indian grouping on a page declared en-US.
    expect(firstNumber('₹1,29,999', 'en-US')).toBe(129999);
  });

  it("takes the locale's reading when both readings take the whole number", () => {
    expect(firstNumber('1.299', 'en-US')).toBe(1.299);
    expect(firstNumber('1.299', 'de-DE')).toBe(1299);
    expect(firstNumber('1,299', 'de-DE')).toBe(1.299);
    expect(firstNumber('1,299', 'en-US')).toBe(1299);
  });

  it('treats an unknown or malformed locale as no locale', () => {
    expect(localeSeparators('tlh')).toBeNull(); // well formed, but Intl would fall back to its default
    expect(localeSeparators('not a tag!')).toBeNull();
    expect(localeSeparators('')).toBeNull();
    expect(firstNumber('1.299', 'tlh')).toBe(1299); // the heuristic reads it
    expect(firstNumber('19,99', 'not a tag!')).toBe(19.99);
  });

  it('learns the separators from Intl', () => {
    expect(localeSeparators('de-DE')).toEqual({ groups: new Set(['.']), decimal: ',' });
    expect(localeSeparators('en-US')).toEqual({ groups: new Set([',']), decimal: '.' });
    expect(localeSeparators('fr-FR')).toEqual({ groups: new Set([' ']), decimal: ',' });
    expect(localeSeparators('de-CH')).toEqual({ groups: new Set(["'"]), decimal: '.' });
  });
});

describe('firstNumber without a locale (heuristic)', () => {
  it.each([
    ['$1,299.00', 1299], // both marks: the last one is the decimal
    ['1.299,00 €', 1299],
    ['1,234,567', 1234567], // one mark, repeated: it groups
    ['1.234.567', 1234567],
    ['1,29,999', 129999],
    ['1.299', 1299], // one mark before exactly three digits after 1–3 digits: it groups
    ['1,299', 1299],
    ['19,99', 19.99], // otherwise it is the decimal mark
    ['24.99', 24.99],
    ['0.125', 0.125], // a group never follows a lone 0
    ['1234.567', 1234.567], // nor more than three digits
    ['1.2999', 1.2999],
    [`1${NNBSP}299,00`, 1299], // spaces and apostrophes group, so the other mark is the decimal
    ["1'299.00", 1299],
    ['1 299,000', 1299], // even before three digits
    ['42', 42],
    ['Only 3 left', 3],
  ])('reads "%s" as %d', (text, expected) => {
    expect(firstNumber(text)).toBe(expected);
    expect(firstNumber(text, null)).toBe(expected);
  });
});

describe('firstNumber: signs, boundaries and junk', () => {
  it('reads negatives from a minus or hyphen right before the number or its currency', () => {
    expect(firstNumber('-5')).toBe(-5);
    expect(firstNumber('Balance: -1,299.50', 'en-US')).toBe(-1299.5);
    expect(firstNumber('\u22123,5 °C', 'de-DE')).toBe(-3.5); // U+2212 MINUS SIGN
    expect(firstNumber('-€5.00')).toBe(-5);
    expect(firstNumber('€-5.00')).toBe(-5);
    expect(firstNumber('- 12')).toBe(-12);
  });

  it('does not take a hyphen inside a word or a range for a minus', () => {
    expect(firstNumber('SKU-1234')).toBe(1234);
    expect(firstNumber('Ages 3-5')).toBe(3);
    expect(firstNumber('-0')).toBe(0);
    expect(Object.is(firstNumber('-0'), -0)).toBe(false);
  });

  it('takes the first number only', () => {
    expect(firstNumber('Was $24.99, now $19.99', 'en-US')).toBe(24.99);
    expect(firstNumber('2 300 ml bottles')).toBe(2300); // a space before exactly three digits groups
    expect(firstNumber('2 10 packs')).toBe(2); // not before two
    expect(firstNumber('In 2 3000 tries')).toBe(2); // nor before four
    expect(firstNumber('1e400')).toBe(1); // no exponents: "e" ends the number
    expect(firstNumber('version 1.2.3')).toBe(1); // "." twice: it groups, but "2" is not a group; the reading stops
  });

  it('gives null when there is no number', () => {
    expect(firstNumber('')).toBeNull();
    expect(firstNumber('Sold out')).toBeNull();
    expect(firstNumber("€ ,. - '")).toBeNull();
    expect(firstNumber('∞', 'en-US')).toBeNull();
  });

  it(`reads a number of up to ${MAX_NUMBER_CHARS} characters; a longer run of digits and separators is no number`, () => {
    expect(firstNumber(`Price: ${'9'.repeat(MAX_NUMBER_CHARS)} left`)).toBe(Number('9'.repeat(MAX_NUMBER_CHARS)));
    expect(firstNumber(`Price: ${'9'.repeat(MAX_NUMBER_CHARS + 1)} left`)).toBeNull();
    expect(firstNumber(`${'1,'.repeat(1000)}5`, 'en-US')).toBeNull();
    expect(firstNumber(`${'1,'.repeat(31)}5 items`, 'en-US')).toBe(1); // 63 characters: read, up to its first malformed group
    expect(firstNumber('x'.repeat(2000))).toBeNull();
  });

  it('reads digits of other scripts', () => {
    expect(firstNumber('१२३')).toBe(123); // Devanagari
    expect(firstNumber('１２,５')).toBe(12.5); // fullwidth
    expect(firstNumber('𝟗𝟗')).toBe(99); // mathematical bold digits sit in back-to-back sets of ten
  });
});
