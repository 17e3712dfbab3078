// Numbers read from a page's text live in src/domain/number-parse.ts, so the renderer (reading a product's
// price) and the monitor service (the number rules) share one reading; this path stays for the service.
export * from '../domain/number-parse.js';
