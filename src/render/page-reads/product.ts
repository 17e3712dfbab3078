// A product's price and stock as the page declares them, read at the moment of the capture: schema.org
// Offer data in JSON-LD, microdata and RDFa, OpenGraph product tags, and the monitor's own
// diff.priceSelector / availabilitySelector. The first source in this order that gives a price is used:
// the user's selectors, JSON-LD, microdata, RDFa, OpenGraph (availability likewise, from the first
// source that says it). The in-page code only gathers raw values, within limits; the page's script runs in
// the same world and may lie (redefine JSON.parse, querySelectorAll...), so everything it returns is
// checked for its type, bounded and coerced here (product-values.ts).
import type { Page } from 'playwright';
import type { ProductFacts, ProductSource } from '../../domain/product.js';
import { availabilityOf, currencyOf, currencyOfText, MAX_VALUE_CHARS, priceOf } from './product-values.js';
import { languageTag } from './probes.js';

/** JSON-LD scripts read, in document order; later ones are left alone (a page does not declare 50 products). */
export const MAX_JSONLD_SCRIPTS = 50;
/** A longer JSON-LD script is skipped unparsed: real ones are a few kilobytes. */
export const MAX_JSONLD_CHARS = 1_000_000;
/** Objects visited across all JSON-LD, and how deep: bounds the walk whatever the data's shape. */
const MAX_JSONLD_NODES = 20_000;
const MAX_JSONLD_DEPTH = 32;
/** Offers kept per source; the lowest price among them is the product's. */
export const MAX_OFFERS = 100;
/** Microdata / RDFa elements with a property looked at. */
const MAX_PROPERTY_ELEMENTS = 2000;

export interface ProductRequest {
  priceSelector?: string;
  availabilitySelector?: string;
}

/** One offer as validated here. */
interface Offer {
  price: number | null;
  currency: string | null;
  availability: ProductFacts['availability'];
}

/** The product, or null when the page declares neither a price nor an availability. */
export async function readProduct(page: Page, request: ProductRequest): Promise<ProductFacts | null> {
  const raw: unknown = await page.evaluate(readInPage, {
    priceSelector: request.priceSelector ?? null,
    availabilitySelector: request.availabilitySelector ?? null,
    max: {
      scripts: MAX_JSONLD_SCRIPTS,
      chars: MAX_JSONLD_CHARS,
      nodes: MAX_JSONLD_NODES,
      depth: MAX_JSONLD_DEPTH,
      offers: MAX_OFFERS,
      elements: MAX_PROPERTY_ELEMENTS,
      value: MAX_VALUE_CHARS,
    },
  });
  return productOf(raw);
}

/** The product from what the page returned (any value at all), by the sources' priority. */
export function productOf(raw: unknown): ProductFacts | null {
  const read = asRecord(raw);
  const structured: [ProductSource, Offer[]][] = [
    ['json-ld', offersOf(read.jsonLd)],
    ['microdata', offersOf(read.microdata)],
    ['rdfa', offersOf(read.rdfa)],
    ['opengraph', offersOf(read.opengraph)],
  ];
  const declaredCurrency = structured.flatMap(([, offers]) => offers).find((o) => o.currency)?.currency ?? null;
  const sources: [ProductSource, Offer[]][] = [['selector', selectorOffers(read, declaredCurrency)], ...structured];

  const priced = sources
    .map(([source, offers]) => [source, lowest(offers)] as const)
    .find(([, offer]) => offer !== undefined);
  const stocked = sources
    .map(([source, offers]) => [source, offers.find((o) => o.availability)?.availability] as const)
    .find(([, availability]) => availability);
  if (!priced && !stocked) return null;
  const offer = priced?.[1];
  return {
    price: offer?.price ?? null,
    currency: offer ? (offer.currency ?? declaredCurrency) : null,
    // The priced offer's own availability first: with several offers, the one whose price is reported.
    availability: offer?.availability ?? stocked?.[1] ?? null,
    source: priced?.[0] ?? stocked![0],
  };
}

/** The offer with the lowest price, one that says its availability first (undefined when none has a price). */
function lowest(offers: Offer[]): Offer | undefined {
  let best: Offer | undefined;
  for (const o of offers) {
    if (o.price === null) continue;
    // An AggregateOffer's lowPrice repeats the price of one of its offers, which may say more.
    if (!best || o.price < best.price! || (o.price === best.price && !best.availability && o.availability)) best = o;
  }
  return best;
}

function offersOf(list: unknown): Offer[] {
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_OFFERS).map((item) => {
    const o = asRecord(item);
    const lang = languageTag(o.lang);
    const text = o.text === true;
    const price = priceOf(o.price, text ? 'text' : 'value', lang);
    // A price written for people ("1.299,00 €") may carry its currency; a declared one comes first.
    const currency =
      currencyOf(o.currency, lang) ??
      (text && typeof o.price === 'string' ? currencyOfText(o.price, lang, false) : null);
    return { price, currency, availability: availabilityOf(o.availability) };
  });
}

/**
 * What the user's selectors read: the price from the first number of the element's text (in its
 * language), its currency from a code or symbol beside it, else the currency the page declares
 * elsewhere, else USD when the text has a "$"; the availability from the words of the other element.
 */
function selectorOffers(read: Record<string, unknown>, declaredCurrency: string | null): Offer[] {
  const priceElement = asRecord(read.price);
  const stockElement = asRecord(read.availability);
  const priceText = typeof priceElement.text === 'string' ? priceElement.text.slice(0, MAX_VALUE_CHARS * 4) : null;
  const lang = languageTag(priceElement.lang);
  const price = priceText === null ? null : priceOf(priceText, 'text', lang);
  const currency =
    priceText === null
      ? null
      : (currencyOfText(priceText, lang, false) ?? declaredCurrency ?? currencyOfText(priceText, lang, true));
  const availability = typeof stockElement.text === 'string' ? availabilityOf(stockElement.text) : null;
  return price === null && availability === null
    ? []
    : [{ price, currency: price === null ? null : currency, availability }];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

interface InPageArgs {
  priceSelector: string | null;
  availabilitySelector: string | null;
  max: {
    scripts: number;
    chars: number;
    nodes: number;
    depth: number;
    offers: number;
    elements: number;
    value: number;
  };
}

/** Runs in the page: gathers raw offers from each source. Self-contained (it is serialized into the page). */
function readInPage({ priceSelector, availabilitySelector, max }: InPageArgs) {
  type Raw = { price?: unknown; currency?: unknown; availability?: unknown; text?: boolean; lang?: unknown };
  const out = {
    jsonLd: [] as Raw[],
    microdata: [] as Raw[],
    rdfa: [] as Raw[],
    opengraph: [] as Raw[],
    price: null as unknown,
    availability: null as unknown,
  };
  const cut = (v: unknown) => (typeof v === 'string' ? v.slice(0, max.value) : typeof v === 'number' ? v : undefined);
  const langOf = (el: Element) => el.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || null;
  const textOf = (el: Element) => (el instanceof HTMLElement ? el.innerText : el.textContent) ?? '';

  // JSON-LD: every Offer / AggregateOffer anywhere (in @graph, arrays, nested entities), and a Product's
  // offers even when they carry no @type.
  try {
    let nodes = 0;
    const first = (v: unknown): unknown => (Array.isArray(v) ? (v as unknown[])[0] : v);
    const typesOf = (o: Record<string, unknown>) =>
      (Array.isArray(o['@type']) ? o['@type'] : [o['@type']])
        .filter((t): t is string => typeof t === 'string')
        .map((t) => t.replace(/^.*[/:#]/, ''));
    const offerOf = (o: Record<string, unknown>, aggregate: boolean): Raw => {
      let price = first(aggregate ? (o.lowPrice ?? o.price) : (o.price ?? o.lowPrice));
      let currency = first(o.priceCurrency);
      const spec = first(o.priceSpecification) as Record<string, unknown> | undefined;
      if (price === undefined && spec && typeof spec === 'object') {
        price = first(spec.price ?? spec.minPrice);
        currency = currency ?? first(spec.priceCurrency);
      }
      const availability = first(o.availability);
      const named =
        availability && typeof availability === 'object'
          ? (availability as Record<string, unknown>)['@id']
          : availability;
      return { price: cut(price), currency: cut(currency), availability: cut(named) };
    };
    const walk = (value: unknown, depth: number, offered: boolean): void => {
      if (value === null || typeof value !== 'object' || depth > max.depth || nodes++ > max.nodes) return;
      if (Array.isArray(value)) {
        for (const item of value) walk(item, depth + 1, offered);
        return;
      }
      const o = value as Record<string, unknown>;
      const types = typesOf(o);
      const aggregate = types.includes('AggregateOffer');
      if ((offered || aggregate || types.includes('Offer')) && out.jsonLd.length < max.offers)
        out.jsonLd.push(offerOf(o, aggregate));
      const product = types.some((t) =>
        /^(?:Product|ProductGroup|ProductModel|IndividualProduct|SomeProducts)$/.test(t),
      );
      for (const key of Object.keys(o)) walk(o[key], depth + 1, product && key === 'offers');
    };
    const scripts = Array.from(document.querySelectorAll('script[type="application/ld+json" i]')).slice(0, max.scripts);
    for (const script of scripts) {
      const text = script.textContent;
      if (typeof text !== 'string' || text.length > max.chars) continue;
      try {
        walk(JSON.parse(text), 0, false);
      } catch {
        // not JSON: the page's mistake, the other scripts still count
      }
    }
  } catch {
    // the page's script broke the reading
  }

  // Microdata (itemprop, scoped by itemscope) and RDFa (property, scoped by typeof): a price element, and the
  // currency and availability of the same item. `content` (and href, value) before the element's text.
  const properties = (attr: string, scopeSelector: string, into: Raw[]) => {
    try {
      const nameOf = (t: string) => t.replace(/^(?:schema:|https?:\/\/(?:www\.)?schema\.org\/)/, '');
      const has = (el: Element, names: string[]) =>
        (el.getAttribute(attr) ?? '').split(/\s+/).some((t) => names.includes(nameOf(t)));
      const valueOf = (el: Element): Raw => {
        for (const a of ['content', 'href', 'resource'])
          if (el.hasAttribute(a)) return { price: cut(el.getAttribute(a)), text: false };
        if (/^(?:DATA|METER)$/.test(el.tagName) && el.hasAttribute('value'))
          return { price: cut(el.getAttribute('value')), text: false };
        return { price: cut(textOf(el)), text: true, lang: langOf(el) };
      };
      const elements = Array.from(document.querySelectorAll(`[${attr}]`)).slice(0, max.elements);
      const scopeOf = (el: Element) => el.closest(scopeSelector);
      const inScope = (scope: Element | null, names: string[]) =>
        elements.find((el) => has(el, names) && (scope === null || scope.contains(el)));
      for (const el of elements) {
        if (into.length >= max.offers) break;
        if (!has(el, ['price', 'lowPrice'])) continue;
        const scope = scopeOf(el);
        const currency = inScope(scope, ['priceCurrency']);
        const availability = inScope(scope, ['availability']);
        into.push({
          ...valueOf(el),
          currency: currency ? valueOf(currency).price : undefined,
          availability: availability ? valueOf(availability).price : undefined,
        });
      }
      if (into.length === 0) {
        const availability = elements.find((el) => has(el, ['availability']));
        if (availability) into.push({ availability: valueOf(availability).price });
      }
    } catch {
      // the page's script broke the reading
    }
  };
  properties('itemprop', '[itemscope]', out.microdata);
  properties('property', '[typeof]', out.rdfa);

  // OpenGraph product tags (Facebook's product:price:amount, and og:price:amount).
  try {
    const meta = (...names: string[]) => {
      for (const name of names) {
        const el = document.querySelector(`meta[property="${name}"], meta[name="${name}"]`);
        if (el) return cut(el.getAttribute('content'));
      }
      return undefined;
    };
    const og = {
      price: meta('product:price:amount', 'og:price:amount', 'product:sale_price:amount'),
      currency: meta('product:price:currency', 'og:price:currency'),
      availability: meta('product:availability', 'og:availability'),
    };
    if (og.price !== undefined || og.availability !== undefined) out.opengraph.push(og);
  } catch {
    // the page's script broke the reading
  }

  const element = (selector: string | null) => {
    if (selector === null) return null;
    try {
      const el = document.querySelector(selector);
      return el ? { text: cut(textOf(el)), lang: langOf(el) } : null;
    } catch {
      return null; // not a valid selector, or the page broke the reading: nothing read
    }
  };
  out.price = element(priceSelector);
  out.availability = element(availabilitySelector);
  return out;
}
