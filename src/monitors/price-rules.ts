// The price rules of notifyWhen: they read the capture's product (price, currency, availability: see
// src/render/page-reads/product.ts) rather than an element, and the previous capture's product for the
// rules that compare (priceDropsBy, priceRisesBy, backInStock, outOfStock, and the repeat of priceBelow
// and priceAbove).
import type { Availability, ProductFacts } from '../domain/product.js';
import type { PriceMove, PriceTest, Rule } from '../domain/notify-rules.js';

/**
 * Availabilities that count as "in stock" for backInStock and outOfStock: the product can be bought now
 * and shipped or collected. PreOrder, PreSale, BackOrder and MadeToOrder can be ordered but are not in
 * stock; OutOfStock, SoldOut, Discontinued and Reserved cannot be bought.
 */
export const IN_STOCK: ReadonlySet<Availability> = new Set<Availability>([
  'InStock',
  'LimitedAvailability',
  'OnlineOnly',
  'InStoreOnly',
]);

/** Prices are decimals written by people: 100 → 90 is a drop of 10 %, whatever binary floating point says. */
const EPSILON = 1e-9;

export interface PriceVerdict {
  met: boolean;
  value: string | number | null;
  error?: string;
}

/** The rule on this capture's product, against the previous capture's (undefined: there is none). */
export function evaluatePriceRule(
  rule: Rule,
  test: PriceTest,
  now: ProductFacts | null,
  before: ProductFacts | null | undefined,
): PriceVerdict {
  if (test === 'backInStock' || test === 'outOfStock') {
    const availability = now?.availability ?? null;
    if (availability === null) return { met: false, value: null, error: 'no availability was read on the page' };
    const was = before?.availability ?? null;
    const inStock = IN_STOCK.has(availability);
    // Without a previous availability nothing is known to have come back or gone.
    const met =
      was !== null && (test === 'backInStock' ? !IN_STOCK.has(was) && inStock : IN_STOCK.has(was) && !inStock);
    return { met, value: availability };
  }
  const price = now?.price ?? null;
  if (price === null) return { met: false, value: null, error: 'no price was read on the page' };
  switch (test) {
    case 'priceBelow':
    case 'priceAbove':
    case 'priceOutside':
      return { met: priceHolds(rule, test, price), value: price };
    case 'priceDropsBy':
    case 'priceRisesBy': {
      const earlier = comparablePrice(now!, before);
      if ('error' in earlier) return { met: false, value: price, error: earlier.error };
      if (earlier.price === null) return { met: false, value: price };
      const move = test === 'priceDropsBy' ? earlier.price - price : price - earlier.price;
      return {
        met: moveReaches(move, earlier.price, (test === 'priceDropsBy' ? rule.priceDropsBy : rule.priceRisesBy)!),
        value: price,
      };
    }
  }
}

/** Whether a threshold rule, as it is now, held for a price a previous capture recorded. */
export function priceHolds(rule: Rule, test: 'priceBelow' | 'priceAbove' | 'priceOutside', price: number): boolean {
  switch (test) {
    case 'priceBelow':
      return price < rule.priceBelow!;
    case 'priceAbove':
      return price > rule.priceAbove!;
    case 'priceOutside':
      return price < rule.priceOutside![0] || price > rule.priceOutside![1];
  }
}

/**
 * The repeat rule: while priceBelow holds, each capture whose price is lower than the previous capture's
 * is news again ("a further drop below the threshold notifies again"); likewise priceAbove for a price
 * that rises further. priceDropsBy and priceRisesBy compare with the previous capture already, so each
 * time they hold is a new movement.
 */
export function priceRepeats(
  test: PriceTest,
  now: ProductFacts | null,
  before: ProductFacts | null | undefined,
): boolean {
  if (test === 'priceDropsBy' || test === 'priceRisesBy') return true;
  if (test !== 'priceBelow' && test !== 'priceAbove') return false;
  const price = now?.price ?? null;
  const earlier = now ? comparablePrice(now, before) : { price: null };
  if (price === null || 'error' in earlier || earlier.price === null) return false;
  return test === 'priceBelow' ? price < earlier.price : price > earlier.price;
}

/** The previous capture's price when it can be compared with this one: read, and in the same currency. */
function comparablePrice(
  now: ProductFacts,
  before: ProductFacts | null | undefined,
): { price: number | null } | { error: string } {
  const price = before?.price ?? null;
  if (price === null) return { price: null };
  if (now.currency && before!.currency && now.currency !== before!.currency)
    return { error: `the currency changed (${before!.currency} → ${now.currency}); prices are not compared` };
  return { price };
}

function moveReaches(move: number, from: number, by: PriceMove): boolean {
  if (by.amount !== undefined) return move >= by.amount - EPSILON;
  if (from <= 0) return false; // a percentage of nothing
  return (move / from) * 100 >= by.percent! - EPSILON;
}
