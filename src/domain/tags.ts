// Monitor tags: as the user wrote them, compared without case ("News" and "news" are one tag).

/** How many tags one monitor may carry, and how long one may be. */
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 40;

/** A tag as it is compared and filtered on. */
export const tagKey = (tag: string): string => tag.toLowerCase();

/** The tags as one searchable text: each key between bars ("|news|eu|"), '' without tags. */
export function tagKeysText(tags: readonly string[]): string {
  return tags.length ? `|${tags.map(tagKey).join('|')}|` : '';
}
