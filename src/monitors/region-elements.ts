// SKELETON (helper B replaces): the elements behind each changed region.
import type { Region } from '../db/captures.js';
import type { PageBlock } from '../render/page-facts.js';

export function withElements(regions: Region[], _before: PageBlock[], _after: PageBlock[]): Region[] {
  return regions;
}
