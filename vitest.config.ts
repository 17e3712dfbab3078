import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One file at a time unless a script says otherwise: `npm run test:unit` and `npm run test:integration`
    // both run two files at once (the integration files spend most of their time waiting on pages, timers
    // and child processes, so two share 2 cores well; each has its own service, Chromium, database and
    // ephemeral ports, and the process checks look only at their own service's process group).
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // The time per file, slowest first, after the summary: where to look when the suite gets slower.
    reporters: ['default', './test/reporters/file-times.ts'],
  },
});
