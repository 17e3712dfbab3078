// changedetection.io's watch list: url-watches.json (alone, or inside its backup zip), as its store writes
// it: {"watching": {uuid: watch}, "settings": {"application": {"tags": {uuid: {title}}}}}. Field names
// follow changedetectionio/model/Watch.py.
import { unzipSync } from 'fflate';
import { invalidRequest } from '../../errors.js';
import { cronEvery, isObject, type ImportCandidate, type ParsedImport } from './types.js';

export const MAX_ZIP_ENTRIES = 1000;
export const MAX_WATCHES_BYTES = 5 * 1024 * 1024;
const WATCHES_FILE = 'url-watches.json';

/** Fields read into the monitor; any other field with a value is listed as not mapped. */
const MAPPED = new Set([
  'url',
  'title',
  'tags',
  'tag',
  'time_between_check',
  'include_filters',
  'subtractive_selectors',
  'ignore_text',
  'paused',
  'method',
  'body',
  'headers',
]);
/** Bookkeeping of changedetection.io itself, not settings: never reported. */
const BOOKKEEPING = new Set([
  'uuid',
  'date_created',
  'last_checked',
  'last_changed',
  'last_error',
  'last_viewed',
  'newest_history_key',
  'previous_md5',
  'previous_md5_before_filters',
  'check_count',
  'consecutive_filter_failures',
  'content-type',
  'fetch_time',
  'history',
  'history_n',
  'remote_server_reply',
  'last_notification_error',
  'notification_alert_count',
  'check_unique_lines',
  'has_ldjson_price_data',
  'track_ldjson_price_data',
  'processor',
  'time_between_check_use_default',
]);

/** url-watches.json out of a backup zip; entry count and uncompressed size capped (zip bombs). */
export function watchesFromZip(bytes: Uint8Array): unknown {
  let entries = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (++entries > MAX_ZIP_ENTRIES) throw invalidRequest(`the zip holds more than ${MAX_ZIP_ENTRIES} files`);
        if (f.name.split('/').pop() !== WATCHES_FILE) return false;
        if (f.originalSize > MAX_WATCHES_BYTES)
          throw invalidRequest(`${WATCHES_FILE} in the zip is over ${MAX_WATCHES_BYTES} bytes uncompressed`);
        return true;
      },
    });
  } catch (err) {
    if ((err as { status?: number }).status) throw err;
    throw invalidRequest(`the body is not a readable zip (${(err as Error).message})`);
  }
  const found = Object.values(files)[0];
  if (!found) throw invalidRequest(`the zip holds no ${WATCHES_FILE}: send a changedetection.io backup`);
  if (found.byteLength > MAX_WATCHES_BYTES)
    throw invalidRequest(`${WATCHES_FILE} in the zip is over ${MAX_WATCHES_BYTES} bytes uncompressed`);
  try {
    return JSON.parse(Buffer.from(found).toString('utf-8'));
  } catch {
    throw invalidRequest(`${WATCHES_FILE} in the zip is not valid JSON`);
  }
}

const filled = (v: unknown) =>
  v !== null &&
  v !== undefined &&
  v !== '' &&
  v !== false &&
  !(Array.isArray(v) && !v.length) &&
  !(isObject(v) && !Object.keys(v).length);

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];

export function parseChangedetection(file: Record<string, unknown>): ParsedImport {
  const watching = file.watching;
  if (!isObject(watching)) throw invalidRequest('a changedetection.io url-watches.json needs a "watching" object');
  const app = isObject(file.settings) && isObject(file.settings.application) ? file.settings.application : {};
  const tagTitles = isObject(app.tags) ? app.tags : {};
  const out: ParsedImport = { format: 'changedetection.io', candidates: [], skipped: [] };
  for (const [uuid, watch] of Object.entries(watching)) {
    if (!isObject(watch) || typeof watch.url !== 'string') {
      out.skipped.push({ entry: uuid, reason: 'the watch has no url' });
      continue;
    }
    out.candidates.push(watchToBody(uuid, watch, tagTitles));
  }
  return out;
}

function watchToBody(uuid: string, w: Record<string, unknown>, tagTitles: Record<string, unknown>): ImportCandidate {
  const notMapped = Object.keys(w).filter((k) => !MAPPED.has(k) && !BOOKKEEPING.has(k) && filled(w[k]));
  const body: Record<string, unknown> = { url: w.url };
  if (typeof w.title === 'string' && w.title.trim()) body.name = w.title.trim();
  const t = isObject(w.time_between_check) ? w.time_between_check : {};
  const unit = { weeks: 604800, days: 86400, hours: 3600, minutes: 60, seconds: 1 } as const;
  const seconds = Object.entries(unit).reduce((sum, [k, s]) => sum + (Number(t[k]) || 0) * s, 0);
  const every = cronEvery(seconds > 0 ? seconds : 3 * 3600); // changedetection.io's default: every 3 hours
  body.schedule = every.schedule;
  if (!every.exact) notMapped.push('time_between_check (rounded up to a cron schedule)');
  body.paused = w.paused === true;
  const filters: Record<string, string>[] = [];
  for (const f of strings(w.include_filters)) {
    if (f.startsWith('xpath:')) filters.push({ xpath: f.slice(6) });
    else if (f.startsWith('xpath1:')) filters.push({ xpath: f.slice(7) });
    else if (f.startsWith('/') || f.startsWith('(')) filters.push({ xpath: f });
    else if (f.startsWith('json:') || f.startsWith('jq:') || f.startsWith('jqraw:'))
      notMapped.push(`include_filters (${f.split(':')[0]})`);
    else filters.push({ css: f });
  }
  for (const s of strings(w.subtractive_selectors)) filters.push({ remove: s });
  const diff: Record<string, unknown> = {};
  if (filters.length) diff.filters = filters;
  const ignore = strings(w.ignore_text).map((line) => {
    const re = /^\/(.+)\/([a-z]*)$/.exec(line);
    return re ? { pattern: re[1], flags: re[2]!.replace(/[^ims]/g, '') } : line;
  });
  if (ignore.length) diff.ignoreText = ignore;
  if (Object.keys(diff).length) body.diff = diff;
  const capture: Record<string, unknown> = {};
  if (typeof w.method === 'string' && w.method.toUpperCase() !== 'GET') capture.method = w.method.toUpperCase();
  if (typeof w.body === 'string' && w.body !== '') capture.body = w.body;
  if (isObject(w.headers) && Object.keys(w.headers).length) capture.headers = w.headers;
  if (Object.keys(capture).length) body.capture = capture;
  // Tags: uuids of settings.application.tags (newer versions) or a comma-separated "tag" string (older).
  const tags = [
    ...strings(w.tags).map((id) => {
      const known = tagTitles[id];
      return isObject(known) && typeof known.title === 'string' ? known.title : id;
    }),
    ...(typeof w.tag === 'string'
      ? w.tag
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : []),
  ];
  if (tags.length) body.tags = tags;
  return { entry: typeof body.name === 'string' ? body.name : (w.url as string) || uuid, body, notMapped };
}
