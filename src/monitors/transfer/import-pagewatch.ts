// Our own export (export.ts): each monitor is already a POST /api/monitors body.
import { invalidRequest } from '../../errors.js';
import { isObject, type ParsedImport } from './types.js';

export function parsePagewatchExport(file: Record<string, unknown>): ParsedImport {
  if (file.version !== 1)
    throw invalidRequest(
      `a pagewatch.monitors file of version ${String(file.version)} is not known; this service reads version 1`,
    );
  if (!Array.isArray(file.monitors)) throw invalidRequest('a pagewatch.monitors file needs a "monitors" array');
  const out: ParsedImport = { format: 'pagewatch', candidates: [], skipped: [] };
  file.monitors.forEach((m, i) => {
    const entry =
      isObject(m) && typeof m.name === 'string'
        ? m.name
        : isObject(m) && typeof m.url === 'string'
          ? m.url
          : `monitors.${i}`;
    if (!isObject(m)) out.skipped.push({ entry, reason: 'not an object' });
    else out.candidates.push({ entry, body: m, notMapped: [] });
  });
  return out;
}
