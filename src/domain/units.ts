// Limits said in the units a person thinks in: "1 MiB", not "1048576 bytes"; "30 s", not "30000 ms".
// Error messages and /docs use these, so the numbers read the same everywhere.

const trim = (n: number) => String(Math.round(n * 10) / 10);

/** 1048576 → "1 MiB", 8388608 → "8 MiB", 1536 → "1.5 KiB", 200 → "200 bytes". */
export function humanBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** 500 → "500 ms", 3000 → "3 s", 90000 → "90 s", 300000 → "5 min", 5400000 → "90 min". */
export function humanMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000 || ms % 60_000 !== 0) return `${trim(ms / 1000)} s`;
  return `${ms / 60_000} min`;
}

/** 3840 → "3,840" (thousands grouped, as people read them). */
export const humanNumber = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 3 });
