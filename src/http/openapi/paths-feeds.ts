// The feed routes of GET /openapi.json: a key's feed URLs under /api/feeds, and the feeds themselves
// under /feeds/{token}, which need no key (the token in the URL is the credential).
import type { ErrorCode } from '../../errors.js';
import { FEED_ENTRIES, MAX_FEEDS_PER_KEY } from '../../feeds/service.js';
import { API_ERRORS, PAGE_ERRORS, binary, errors, idParam, json, one, operation, ref } from './operations.js';

const tokenParam = {
  name: 'token',
  in: 'path',
  required: true,
  description: 'The token of the feed URL (43 characters of base64url)',
  schema: { type: 'string' },
};
const feedMissing = {
  not_found: 'unknown, malformed, rotated or revoked token, or the key was revoked',
};

export function buildFeedPaths(): Record<string, Record<string, unknown>> {
  const keyed = (codes: ErrorCode[], why?: Partial<Record<ErrorCode, string>>) =>
    errors([...codes, ...API_ERRORS], why);
  return {
    '/api/feeds': {
      post: operation({
        id: 'createFeed',
        summary: 'Make an Atom feed URL of changes',
        tag: 'Feeds',
        access: 'key',
        description:
          "An unguessable URL of an Atom feed of one monitor's changes, of a tag's monitors', or of all the key's. " +
          `The URL is shown in this answer only. At most ${MAX_FEEDS_PER_KEY} feeds per key.`,
        requestBody: { required: true, content: json(ref('FeedRequest')) },
        responses: {
          201: one('FeedCreated', 'The feed, with its URL'),
          ...keyed(['invalid_request', 'payload_too_large', 'unsupported_media_type', 'conflict'], {
            conflict: `the key already has ${MAX_FEEDS_PER_KEY} feeds`,
            invalid_request:
              'the body failed validation (`details` lists `{path, message}` per field), or monitorId names no ' +
              'monitor of this key',
          }),
        },
      }),
      get: operation({
        id: 'listFeeds',
        summary: "The key's feeds (without their URLs)",
        tag: 'Feeds',
        access: 'key',
        responses: { 200: one('FeedList', 'Newest first'), ...keyed([]) },
      }),
    },
    '/api/feeds/{id}': {
      parameters: [idParam('feed')],
      delete: operation({
        id: 'deleteFeed',
        summary: 'Revoke a feed: its URL answers 404 at once',
        tag: 'Feeds',
        access: 'key',
        responses: { 204: { description: 'Revoked' }, ...keyed(['not_found']) },
      }),
    },
    '/api/feeds/{id}/rotate': {
      parameters: [idParam('feed')],
      post: operation({
        id: 'rotateFeed',
        summary: 'A new URL for a feed: the old one answers 404 at once',
        tag: 'Feeds',
        access: 'key',
        responses: { 200: one('FeedCreated', 'The feed, with its new URL'), ...keyed(['not_found']) },
      }),
    },
    '/feeds/{token}': {
      parameters: [tokenParam],
      get: operation({
        id: 'getFeed',
        summary: 'The Atom feed',
        tag: 'Feeds',
        access: 'public',
        description:
          `The newest ${FEED_ENTRIES} changes of the feed's monitors (monitor.changed captures), newest first; each ` +
          "entry's content is HTML with the summary, the text changes (<del> removed, <ins> added) and the first " +
          'changed area as an image. Cache-Control: private, no-cache; answers 304 to If-None-Match (ETag) or ' +
          'If-Modified-Since (Last-Modified) while nothing changed.',
        responses: {
          200: {
            description: 'Atom 1.0',
            headers: {
              ETag: { description: 'Changes whenever the entries do', schema: { type: 'string' } },
              'Last-Modified': { description: 'The newest entry', schema: { type: 'string' } },
            },
            content: { 'application/atom+xml': { schema: { type: 'string' } } },
          },
          304: { description: 'Not modified since the reader last read it' },
          ...errors(['not_found', ...PAGE_ERRORS], feedMissing),
        },
      }),
    },
    '/feeds/{token}/crops/{captureId}.png': {
      parameters: [
        tokenParam,
        {
          name: 'captureId',
          in: 'path',
          required: true,
          description: "The entry's capture",
          schema: { type: 'string' },
        },
      ],
      get: operation({
        id: 'getFeedCrop',
        summary: "The first changed area of a feed entry's capture",
        tag: 'Feeds',
        access: 'public',
        description:
          "The capture's first region, with a margin, scaled to at most 600 px wide. Only for captures the feed shows.",
        responses: {
          200: { description: 'PNG', content: binary('image/png') },
          ...errors(['not_found', ...PAGE_ERRORS], {
            not_found: `${feedMissing.not_found}; or the capture is not in the feed, has no changed area or is no longer kept`,
          }),
        },
      }),
    },
  };
}
