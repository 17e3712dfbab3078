// Opaque list cursors: the (createdAt, id) of the last item shown, so the next page starts after it
// even while new items arrive at the top.
import { invalidRequest } from '../errors.js';

export interface Position {
  createdAt: string;
  id: string;
}

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    /* falls through to the 400 */
  }
  throw invalidRequest('cursor is not one this service gave out', [
    { path: 'cursor', message: 'use nextCursor from the previous page' },
  ]);
}

/** A page of `items` (fetched with limit + 1) and the cursor to the next, if there is one. */
export function page<T extends Position, V>(
  rows: T[],
  limit: number,
  view: (row: T) => V,
): { items: V[]; nextCursor: string | null } {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return { items: shown.map(view), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}
