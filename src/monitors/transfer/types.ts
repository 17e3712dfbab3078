// What every importer hands back: one candidate POST /api/monitors body per entry of the file, or the
// reason an entry could not become one. The service validates and creates each body like a POST.

export interface ImportCandidate {
  /** How the entry is named in the answer (its name, else its url, else its place in the file). */
  entry: string;
  body: Record<string, unknown>;
  /** Fields of the source entry that have no equivalent here. */
  notMapped: string[];
}

export interface ImportSkip {
  entry: string;
  reason: string;
}

export type ImportFormat = 'pagewatch' | 'changedetection.io' | 'urlwatch';

export interface ParsedImport {
  format: ImportFormat;
  candidates: ImportCandidate[];
  skipped: ImportSkip[];
}

/** A plain object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cron schedule for "every `seconds`": the nearest common one at or above it, and whether it is exact. */
export function cronEvery(seconds: number): { schedule: string; exact: boolean } {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const exact = seconds % 60 === 0;
  for (const m of [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30])
    if (minutes <= m) return { schedule: `*/${m} * * * *`, exact: exact && minutes === m };
  const hours = Math.ceil(minutes / 60);
  for (const h of [1, 2, 3, 4, 6, 8, 12])
    if (hours <= h) return { schedule: h === 1 ? '0 * * * *' : `0 */${h} * * *`, exact: minutes === h * 60 };
  if (minutes <= 1440) return { schedule: '0 0 * * *', exact: minutes === 1440 };
  return { schedule: '0 0 * * 0', exact: minutes === 7 * 1440 };
}
