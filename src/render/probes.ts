// SKELETON (helper C replaces): what each notifyWhen selector matches.
import type { Page } from 'playwright';
import type { Probe } from './page-facts.js';

export async function readProbes(_page: Page, selectors: string[]): Promise<Probe[]> {
  return selectors.map((selector) => ({ selector, found: false, text: null }));
}
