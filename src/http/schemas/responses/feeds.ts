// A feed as GET /api/feeds lists it, and as it is created or rotated: only then with its URL.
import { z } from 'zod';
import { dateTime } from './common.js';

export const feed = z.object({
  id: z.string(),
  scope: z.enum(['monitor', 'tag', 'key']),
  monitorId: z.string().optional(),
  tag: z.string().optional(),
  createdAt: dateTime(),
  rotatedAt: dateTime().optional().describe('The last rotation, if any'),
});

export const feedWithUrl = z.intersection(
  feed,
  z.object({
    url: z
      .url()
      .describe(
        'The feed: <base>/feeds/<token>. Shown only in this answer (only a hash of the token is kept); ' +
          'anyone with it can read the feed, without a key',
      ),
  }),
);

export const feedList = z.object({ feeds: z.array(feed) });
