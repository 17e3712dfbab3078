// The product's values as the service accepts them from a page that may lie: prices coerced and bounded,
// currencies as ISO 4217 codes, availabilities as schema.org names; and the sources' priority.
import { describe, expect, it } from 'vitest';
import { MAX_OFFERS, productOf } from '../../src/render/page-reads/product.js';
import {
  availabilityOf,
  currencyOf,
  currencyOfText,
  MAX_PRICE,
  priceOf,
} from '../../src/render/page-reads/product-values.js';

describe('priceOf', () => {
  it('reads declared values with "." as the decimal mark, and text in the element\'s language', () => {
    expect(priceOf('1299.00', 'value')).toBe(1299);
    expect(priceOf(19.99, 'value')).toBe(19.99);
    expect(priceOf('1.299', 'value')).toBe(1.299); // schema.org: "." is the decimal mark
    expect(priceOf('1.299,00 €', 'text', 'de-DE')).toBe(1299);
    expect(priceOf('1.299', 'text', 'de-DE')).toBe(1299);
    expect(priceOf("CHF 1'299.50", 'text', 'de-CH')).toBe(1299.5);
    expect(priceOf('¥12,800', 'text', 'ja-JP')).toBe(12800);
  });

  it('refuses what is not a finite price from 0 to the cap', () => {
    expect(priceOf('1e400', 'value')).toBeNull();
    expect(priceOf(Number.POSITIVE_INFINITY, 'value')).toBeNull();
    expect(priceOf(Number.NaN, 'value')).toBeNull();
    expect(priceOf(-5, 'value')).toBeNull();
    expect(priceOf('-5.00', 'value')).toBeNull();
    expect(priceOf('-€5.00', 'text', 'en')).toBeNull();
    expect(priceOf(MAX_PRICE, 'value')).toBe(MAX_PRICE);
    expect(priceOf(MAX_PRICE * 10, 'value')).toBeNull();
    expect(priceOf('1'.repeat(1000), 'value')).toBeNull();
    expect(priceOf({ valueOf: () => 5 }, 'value')).toBeNull();
    expect(priceOf(['5'], 'value')).toBeNull();
    expect(priceOf('free', 'text')).toBeNull();
    expect(priceOf(0, 'value')).toBe(0);
  });
});

describe('currencies', () => {
  it('declared codes in any case; symbols a careless page wrote', () => {
    expect(currencyOf('usd')).toBe('USD');
    expect(currencyOf(' EUR ')).toBe('EUR');
    expect(currencyOf('€')).toBe('EUR');
    expect(currencyOf('$')).toBeNull(); // a bare dollar sign is not declared as USD
    expect(currencyOf('EURO')).toBeNull();
    expect(currencyOf(42)).toBeNull();
  });

  it('in a price text: codes, symbols, "kr" by language, "$" as USD only when allowed', () => {
    expect(currencyOfText("CHF 1'299.50", 'de-CH', false)).toBe('CHF');
    expect(currencyOfText('1.299,00 €', 'de-DE', false)).toBe('EUR');
    expect(currencyOfText('£899', 'en-GB', false)).toBe('GBP');
    expect(currencyOfText('¥12,800', 'ja', false)).toBe('JPY');
    expect(currencyOfText('CA$19.99', 'en-CA', true)).toBe('CAD');
    expect(currencyOfText('$19.99', 'en-US', true)).toBe('USD');
    expect(currencyOfText('$19.99', 'en-US', false)).toBeNull();
    expect(currencyOfText('199 kr', 'sv-SE', false)).toBe('SEK');
    expect(currencyOfText('199 kr.', 'da', false)).toBe('DKK');
    expect(currencyOfText('199 kr', null, false)).toBeNull();
    expect(currencyOfText('SKU 1234', 'en', true)).toBeNull(); // three capitals that are no currency
  });
});

describe('availabilityOf', () => {
  it('schema.org URLs and names in any case, and words in six languages', () => {
    const cases: [string, string | null][] = [
      ['https://schema.org/InStock', 'InStock'],
      ['http://schema.org/InStock', 'InStock'],
      ['schema:OutOfStock', 'OutOfStock'],
      ['InStock', 'InStock'],
      ['instock', 'InStock'],
      ['In stock', 'InStock'],
      ['Out of stock', 'OutOfStock'],
      ['SOLD OUT', 'SoldOut'],
      ['Only 3 left!', 'LimitedAvailability'],
      ['Auf Lager', 'InStock'],
      ['Nicht verfügbar', 'OutOfStock'],
      ['Ausverkauft', 'SoldOut'],
      ['En stock', 'InStock'],
      ['Rupture de stock', 'OutOfStock'],
      ['Épuisé', 'SoldOut'],
      ['Disponible', 'InStock'],
      ['No disponible', 'OutOfStock'],
      ['Agotado', 'SoldOut'],
      ['Disponibile', 'InStock'],
      ['Non disponibile', 'OutOfStock'],
      ['Op voorraad', 'InStock'],
      ['Niet op voorraad', 'OutOfStock'],
      ['Uitverkocht', 'SoldOut'],
      ['Unavailable', 'OutOfStock'],
      ['oos', 'OutOfStock'],
      ['Call us', null],
    ];
    expect(cases.map(([text]) => [text, availabilityOf(text)])).toEqual(cases);
    expect(availabilityOf({ toString: () => 'InStock' })).toBeNull();
  });
});

describe('productOf: what the page returned, whatever it is', () => {
  it('nothing usable is no product', () => {
    for (const raw of [null, undefined, 42, 'x', [], { jsonLd: 'x', microdata: {}, price: [] }])
      expect(productOf(raw)).toBeNull();
  });

  it('hostile offers are dropped one by one; the lowest valid price wins', () => {
    const product = productOf({
      jsonLd: [
        { price: '1e400', currency: 'USD' },
        { price: -1, currency: 'USD' },
        { price: { length: 1e9 }, currency: 'USD' },
        { price: 'x'.repeat(10_000_000), currency: 'USD' },
        { price: '24.99', currency: 'USD', availability: 'https://schema.org/InStock' },
        { price: 30, currency: 'USD', availability: 'https://schema.org/OutOfStock' },
      ],
    });
    expect(product).toEqual({ price: 24.99, currency: 'USD', availability: 'InStock', source: 'json-ld' });
  });

  it("an AggregateOffer's lowPrice and the offer it repeats: the offer that says its availability", () => {
    const offers = [
      { price: '15.50', currency: 'USD' },
      { price: '30', availability: 'InStock' },
      { price: 15.5, availability: 'LimitedAvailability' },
    ];
    expect(productOf({ jsonLd: offers })).toMatchObject({ price: 15.5, availability: 'LimitedAvailability' });
  });

  it(`reads at most ${MAX_OFFERS} offers of a source`, () => {
    const offers = Array.from({ length: MAX_OFFERS + 1 }, (_, i) => ({ price: MAX_OFFERS + 1 - i }));
    expect(productOf({ jsonLd: offers })!.price).toBe(2); // the 101st (price 1) is not read
    expect(productOf({ jsonLd: offers.slice(1) })!.price).toBe(1);
  });

  it('priority: selector, JSON-LD, microdata, RDFa, OpenGraph; availability from the first that says it', () => {
    const all = {
      jsonLd: [{ price: '20', currency: 'USD' }],
      microdata: [{ price: '21', currency: 'EUR', availability: 'InStock' }],
      rdfa: [{ price: '22', currency: 'GBP' }],
      opengraph: [{ price: '23', currency: 'JPY', availability: 'oos' }],
    };
    expect(productOf(all)).toEqual({ price: 20, currency: 'USD', availability: 'InStock', source: 'json-ld' });
    expect(productOf({ ...all, price: { text: '19,50 €', lang: 'de-DE' } })).toEqual({
      price: 19.5,
      currency: 'EUR',
      availability: 'InStock',
      source: 'selector',
    });
    expect(productOf({ rdfa: all.rdfa, opengraph: all.opengraph })).toMatchObject({ price: 22, source: 'rdfa' });
  });

  it("a selector price is read in its element's language", () => {
    expect(productOf({ price: { text: '1.299 €', lang: 'de-DE' } })).toMatchObject({ price: 1299, currency: 'EUR' });
    expect(productOf({ price: { text: '1.299 €', lang: 'en-US' } })).toMatchObject({ price: 1.299 });
  });

  it('a selector price with "$": USD only when the page declares no currency', () => {
    expect(productOf({ price: { text: '$5.00', lang: 'en' } })).toMatchObject({ currency: 'USD', source: 'selector' });
    expect(
      productOf({
        price: { text: '$5.00', lang: 'en-CA' },
        opengraph: [{ currency: 'CAD', availability: 'in stock' }],
      }),
    ).toMatchObject({ price: 5, currency: 'CAD', availability: 'InStock', source: 'selector' });
  });

  it('availability alone is a product without a price', () => {
    expect(productOf({ availability: { text: 'Ausverkauft' } })).toEqual({
      price: null,
      currency: null,
      availability: 'SoldOut',
      source: 'selector',
    });
  });
});
