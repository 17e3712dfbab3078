import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, page } from '../../src/http/cursor.js';
import { AppError } from '../../src/errors.js';

describe('list cursors', () => {
  it('round-trip a position; nothing given is the first page', () => {
    const p = { createdAt: '2026-11-22T10:00:00.000Z', id: 'job_abc' };
    expect(decodeCursor(encodeCursor(p))).toEqual(p);
    expect(decodeCursor(undefined)).toBeUndefined();
  });

  it.each(['garbage', Buffer.from('[1,2]').toString('base64url'), Buffer.from('{}').toString('base64url'), ''])(
    'a cursor this service did not give out (%j) is 400 naming cursor',
    (bad) => {
      try {
        decodeCursor(bad);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).extra.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
      }
    },
  );

  it('page: a next cursor only when a row beyond the limit exists, pointing at the last shown', () => {
    const rows = [3, 2, 1].map((n) => ({ createdAt: `2026-11-22T10:00:0${n}.000Z`, id: `j${n}` }));
    const two = page(rows, 2, (r) => r.id);
    expect(two.items).toEqual(['j3', 'j2']);
    expect(decodeCursor(two.nextCursor!)).toEqual(rows[1]);
    expect(page(rows, 3, (r) => r.id)).toEqual({ items: ['j3', 'j2', 'j1'], nextCursor: null });
  });
});
