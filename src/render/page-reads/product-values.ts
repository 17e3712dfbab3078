// The values a product page declares, made safe and uniform in the service: a price as a finite,
// non-negative number, a currency as an ISO 4217 code, an availability as a schema.org name. What the
// page returned is untrusted (its script may redefine JSON.parse or the DOM), so every value is checked
// for its type and length here whatever the in-page code meant to send.
import { firstNumber } from '../../domain/number-parse.js';
import { AVAILABILITIES, type Availability } from '../../domain/product.js';

/** No shop prices anything at a quadrillion; larger figures are garbage (or "1e400"). */
export const MAX_PRICE = 1e15;
/** Longer values are not a price, a currency or an availability. */
export const MAX_VALUE_CHARS = 200;

/** A decimal as schema.org writes it ("1299.00", "19.9", "1e3"): read as is, "." is the decimal mark. */
const SCHEMA_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i; // one way to match each digit: linear

/**
 * A price from a declared value: a JSON number, or a string. `written` tells how the string came: as a
 * machine value (JSON-LD, a `content` attribute: a plain decimal is read with "." as its decimal mark) or
 * as text a person reads (an element's text: the first number, read with the element's language).
 * null when it is not a finite number from 0 to MAX_PRICE.
 */
export function priceOf(raw: unknown, written: 'value' | 'text', lang: string | null = null): number | null {
  let price: number | null = null;
  if (typeof raw === 'number') price = raw;
  else if (typeof raw === 'string' && raw.length <= MAX_VALUE_CHARS * 4) {
    const text = raw.trim();
    price = written === 'value' && SCHEMA_DECIMAL.test(text) ? Number(text) : firstNumber(text, lang);
  }
  if (price === null || !Number.isFinite(price) || price < 0 || price > MAX_PRICE) return null;
  return price;
}

/** ISO 4217 codes recognised in a price's text (a code alone: USD, EUR...); all real codes in declared values. */
const KNOWN_CODES = new Set(
  (
    'USD EUR GBP JPY CHF CAD AUD NZD SEK NOK DKK ISK PLN CZK HUF RON BGN INR CNY KRW BRL MXN ZAR TRY RUB ' +
    'HKD SGD ILS THB PHP VND IDR MYR TWD AED SAR'
  ).split(' '),
);

/**
 * Currency symbols and their codes, longest first so "US$" is read before "$". "$" alone is USD only when
 * nothing else on the page names a currency (see currencyOfText); "kr" is SEK, NOK, DKK or ISK by language.
 */
const SYMBOLS: [string, string][] = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['AU$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['MX$', 'MXN'],
  ['R$', 'BRL'],
  ['C$', 'CAD'],
  ['A$', 'AUD'],
  ['S$', 'SGD'],
  ['CN¥', 'CNY'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₽', 'RUB'],
  ['₺', 'TRY'],
  ['₪', 'ILS'],
  ['₫', 'VND'],
  ['₱', 'PHP'],
  ['฿', 'THB'],
  ['zł', 'PLN'],
  ['Kč', 'CZK'],
  ['Fr.', 'CHF'],
];
const KRONA: Record<string, string> = { sv: 'SEK', nb: 'NOK', nn: 'NOK', no: 'NOK', da: 'DKK', is: 'ISK' };

/** A declared currency ("usd", "EUR", or a symbol a careless page wrote): an upper-case ISO 4217 code, or null. */
export function currencyOf(raw: unknown, lang: string | null = null): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_VALUE_CHARS) return null;
  const text = raw.trim();
  if (/^[A-Za-z]{3}$/.test(text)) return text.toUpperCase();
  return currencyOfText(text, lang, false);
}

/**
 * The currency a price's text shows, from a known code ("CHF 1'299.50") or a symbol ("1.299,00 €").
 * `dollarIsUsd`: a bare "$" means USD (only when the page names no currency anywhere else).
 */
export function currencyOfText(text: string, lang: string | null, dollarIsUsd: boolean): string | null {
  const cut = text.slice(0, MAX_VALUE_CHARS * 4);
  for (const code of cut.toUpperCase().match(/(?<![A-Z])[A-Z]{3}(?![A-Z])/g) ?? [])
    if (KNOWN_CODES.has(code)) return code;
  for (const [symbol, code] of SYMBOLS) if (cut.includes(symbol)) return code;
  if (/(?<!\p{L})kr\.?(?!\p{L})/iu.test(cut)) return KRONA[(lang ?? '').toLowerCase().split('-')[0]!] ?? null;
  return dollarIsUsd && cut.includes('$') ? 'USD' : null;
}

/** schema.org names by their lower-case form: "instock" → "InStock". */
const BY_LOWER = new Map<string, Availability>(AVAILABILITIES.map((a) => [a.toLowerCase(), a]));

/** Any of the phrases as whole words (a letter on neither side), in text already in lower case. */
const phrase = (...words: string[]) => new RegExp(`(?<!\\p{L})(?:${words.join('|')})(?!\\p{L})`, 'u');

/**
 * What a page or an element says of the stock, in words (documented in docs/monitors.md, "Prices and
 * stock"): English, German, French, Spanish, Italian and Dutch. Tried in order, so the negative phrases
 * come before the positive ones they contain ("not available" before "available").
 */
const PHRASES: [RegExp, Availability][] = [
  [
    phrase('sold out', 'ausverkauft', 'épuisé', 'épuisée', 'agotado', 'agotada', 'esaurito', 'esaurita', 'uitverkocht'),
    'SoldOut',
  ],
  [
    phrase(
      'out of stock',
      'oos', // OpenGraph's product:availability
      'not in stock',
      'not available',
      'unavailable',
      'currently unavailable',
      'nicht auf lager',
      'nicht vorrätig',
      'nicht verfügbar',
      'nicht lieferbar',
      'vergriffen',
      'en rupture',
      'en rupture de stock',
      'rupture de stock',
      'indisponible',
      'non disponible',
      'sin stock',
      'sin existencias',
      'no disponible',
      'non disponibile',
      'non disponibili',
      'terminato',
      'niet op voorraad',
      'niet leverbaar',
      'niet beschikbaar',
    ),
    'OutOfStock',
  ],
  [
    phrase(
      'pre-order',
      'preorder',
      'vorbestellen',
      'vorbestellung',
      'précommande',
      'pré-commande',
      'preventa',
      'preordine',
      'pre-order',
      'voorbestellen',
    ),
    'PreOrder',
  ],
  [phrase('backorder', 'back-order', 'back order', 'nachbestellt'), 'BackOrder'],
  [phrase('discontinued', 'nicht mehr erhältlich'), 'Discontinued'],
  [
    phrase(
      'only \\d+ left',
      'few left',
      'limited stock',
      'nur noch \\d+',
      'plus que \\d+',
      'últimas unidades',
      'ultimi pezzi',
      'nog maar \\d+',
    ),
    'LimitedAvailability',
  ],
  [
    phrase(
      'in stock',
      'available',
      'auf lager',
      'vorrätig',
      'lieferbar',
      'verfügbar',
      'en stock',
      'disponible',
      'en existencia',
      'disponibile',
      'disponibili',
      'in magazzino',
      'op voorraad',
      'leverbaar',
      'beschikbaar',
    ),
    'InStock',
  ],
];

/**
 * A declared availability: a schema.org URL ("https://schema.org/InStock", "http://schema.org/InStock"),
 * its name in any case ("InStock", "instock"), or words ("in stock", "Ausverkauft"). null when unknown.
 */
export function availabilityOf(raw: unknown): Availability | null {
  if (typeof raw !== 'string' || raw.length > MAX_VALUE_CHARS * 4) return null;
  const text = raw.trim();
  const name = text.replace(/^https?:\/\/(?:www\.)?schema\.org\//i, '').replace(/^schema:/i, '');
  const exact = BY_LOWER.get(name.toLowerCase());
  if (exact) return exact;
  const words = text.toLowerCase().replace(/\s+/g, ' ');
  return PHRASES.find(([phrase]) => phrase.test(words))?.[1] ?? null;
}
