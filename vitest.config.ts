import { defineConfig } from 'vitest/config';

// Four projects (and `containers`, below), run by `npm test` in this order (package.json): `unit` needs no browser and no database
// server, `postgres` needs PostgreSQL, `integration` runs the real service with real Chromium, and
// `faults` (`npm run test:faults`) breaks what the service stands on — killed renderers and browsers,
// a restarted or stopped PostgreSQL, a full disk, a skewed clock, PgBouncer — as root. Each runs
// two files at once: the integration files spend most of their time waiting on pages, timers and child
// processes, so two share 2 cores well; each has its own service, Chromium, database and ephemeral ports,
// and the process checks look only at their own service's process group.
export default defineConfig({
  test: {
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // The time per file, slowest first, after the summary: where to look when the suite gets slower.
    reporters: ['default', './test/reporters/file-times.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/http/**/*.test.ts'],
        },
      },
      { extends: true, test: { name: 'postgres', include: ['test/postgres/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'] },
      },
      { extends: true, test: { name: 'faults', include: ['test/faults/**/*.test.ts'] } },
      // Not part of `npm test`: `npm run test:containers` (.ci/run runs it after) builds the image from
      // Containerfile (test/containers/setup.ts) and runs it and compose.yaml with podman, one file at a time.
      {
        extends: true,
        test: {
          name: 'containers',
          include: ['test/containers/**/*.test.ts'],
          globalSetup: ['test/containers/setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
