// SKELETON (helper B replaces): the text blocks of two captures compared.
import type { TextChange } from '../db/captures.js';
import type { PageBlock } from '../render/page-facts.js';

export interface TextComparison { changes: TextChange[]; total: number }

export async function compareTexts(_before: PageBlock[], _after: PageBlock[], _options: { ignoreText: string[] }): Promise<TextComparison> {
  return { changes: [], total: 0 };
}

/** One line for a person, e.g. "Price: $24.99 → $19.99"; null when there is no text change. */
export function summarize(_changes: TextChange[], _total: number): string | null {
  return null;
}
