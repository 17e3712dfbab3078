// A product's price and stock as a capture read them from the page: schema.org Offer data (JSON-LD,
// microdata, RDFa), OpenGraph product tags, or the monitor's own selectors. Read by the renderer
// (src/render/page-reads), stored with the capture, tested by the price rules of notifyWhen.

/** schema.org ItemAvailability values, as their short names. */
export const AVAILABILITIES = [
  'InStock',
  'OutOfStock',
  'PreOrder',
  'BackOrder',
  'Discontinued',
  'LimitedAvailability',
  'SoldOut',
  'InStoreOnly',
  'OnlineOnly',
  'PreSale',
  'MadeToOrder',
  'Reserved',
] as const;
export type Availability = (typeof AVAILABILITIES)[number];

export const PRODUCT_SOURCES = ['json-ld', 'microdata', 'rdfa', 'opengraph', 'selector'] as const;
export type ProductSource = (typeof PRODUCT_SOURCES)[number];

export interface ProductFacts {
  /** The offer's price as a number (the lowest when the page lists several offers); null when none was read. */
  price: number | null;
  /** ISO 4217 code (upper case) when the page says one; null otherwise. */
  currency: string | null;
  availability: Availability | null;
  /** Where the figures were read. */
  source: ProductSource;
}
