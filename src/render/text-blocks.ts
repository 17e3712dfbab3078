// SKELETON (helper B replaces): the visible text blocks of the page, in reading order.
import type { Page } from 'playwright';
import type { PageBlock } from './page-facts.js';
import type { Layout, Rect } from './page-geometry.js';

export async function readBlocks(_page: Page, _textSelector: string | undefined, _area: Rect, _layout: Layout, _scale: number): Promise<PageBlock[]> {
  return [];
}
