// urlwatch's urls.yaml: one job per YAML document (url, or navigate for a browser job; command jobs run a
// shell command, which a web service does not do). Filters follow urlwatch's filter names.
import { parseAllDocuments } from 'yaml';
import { invalidRequest } from '../../errors.js';
import { cronEvery, isObject, type ImportCandidate, type ParsedImport } from './types.js';

/** Aliases a document may expand: a few, so an alias bomb ("billion laughs") is refused, not expanded. */
const MAX_ALIASES = 50;
const MAPPED = new Set(['url', 'navigate', 'name', 'filter', 'method', 'data', 'headers', 'kind']);

export function parseUrlwatch(text: string): ParsedImport {
  let docs: unknown[];
  try {
    docs = parseAllDocuments(text).map((d) => {
      if ('errors' in d && d.errors.length) throw new Error(d.errors[0]!.message);
      return d.toJS({ maxAliasCount: MAX_ALIASES }) as unknown;
    });
  } catch (err) {
    throw invalidRequest(`the body is not readable YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const out: ParsedImport = { format: 'urlwatch', candidates: [], skipped: [] };
  docs.forEach((job, i) => {
    if (job === null || job === undefined) return;
    const label = isObject(job)
      ? [job.name, job.url, job.navigate, job.command].find((v) => typeof v === 'string')
      : undefined;
    const entry = typeof label === 'string' ? label : `document ${i + 1}`;
    if (!isObject(job)) return out.skipped.push({ entry, reason: 'the document is not a job (a mapping)' });
    if (job.command !== undefined)
      return out.skipped.push({ entry, reason: 'command jobs run a shell command; Pagewatch watches web pages only' });
    const url = job.url ?? job.navigate;
    if (typeof url !== 'string') return out.skipped.push({ entry, reason: 'the job has no url' });
    out.candidates.push(jobToBody(entry, url, job));
  });
  if (!out.candidates.length && !out.skipped.length) throw invalidRequest('the YAML holds no urlwatch jobs');
  return out;
}

function jobToBody(entry: string, url: string, job: Record<string, unknown>): ImportCandidate {
  const notMapped = Object.keys(job).filter((k) => !MAPPED.has(k));
  // urlwatch runs every job each time it is run (by cron): hourly is the usual crontab line.
  const body: Record<string, unknown> = { url, schedule: cronEvery(3600).schedule };
  if (typeof job.name === 'string' && job.name.trim()) body.name = job.name.trim();
  const filters: Record<string, string>[] = [];
  for (const [kind, arg] of filterList(job.filter)) {
    if (kind === 'css' && arg) filters.push({ css: arg });
    else if (kind === 'xpath' && arg) filters.push({ xpath: arg });
    else if (kind === 'element-by-id' && arg) filters.push({ css: `#${arg}` });
    else if (kind === 'element-by-class' && arg) filters.push({ css: `.${arg}` });
    else if (kind === 'element-by-tag' && arg) filters.push({ css: arg });
    else if (kind === 'html2text' || kind === 'strip')
      continue; // Pagewatch compares the page's text already
    else notMapped.push(`filter (${kind})`);
  }
  if (filters.length) body.diff = { filters };
  const capture: Record<string, unknown> = {};
  if (typeof job.method === 'string' && job.method.toUpperCase() !== 'GET') capture.method = job.method.toUpperCase();
  if (typeof job.data === 'string') {
    capture.body = job.data;
    capture.method ??= 'POST';
  } else if (isObject(job.data)) {
    capture.body = new URLSearchParams(job.data as Record<string, string>).toString();
    capture.bodyContentType = 'application/x-www-form-urlencoded';
    capture.method ??= 'POST';
  }
  if (isObject(job.headers)) capture.headers = job.headers;
  if (Object.keys(capture).length) body.capture = capture;
  return { entry, body, notMapped };
}

/** urlwatch's filter: "css:.a,html2text" or a list of strings / {name: argument} mappings. */
function filterList(filter: unknown): [string, string | undefined][] {
  if (typeof filter === 'string')
    return filter.split(',').map((part) => {
      const at = part.indexOf(':');
      return at < 0 ? [part.trim(), undefined] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    });
  if (!Array.isArray(filter)) return [];
  return filter.map((f): [string, string | undefined] => {
    if (typeof f === 'string') return [f, undefined];
    if (isObject(f)) {
      const [kind, arg] = Object.entries(f)[0] ?? ['?', undefined];
      const value = isObject(arg) ? (arg.path ?? arg.selector) : arg;
      return [kind, typeof value === 'string' ? value : undefined];
    }
    return ['?', undefined];
  });
}
