import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration files each start a real Chromium; on a 2-core machine running them one at a time is
    // both faster overall and free of timing noise. (`npm run test:unit` turns parallelism back on: its
    // files start no browser.)
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // The time per file, slowest first, after the summary: where to look when the suite gets slower.
    reporters: ['default', './test/reporters/file-times.ts'],
  },
});
