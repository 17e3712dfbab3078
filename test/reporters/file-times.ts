// Prints how long each test file took, slowest first, after the run's own summary: the suite's total
// time is a budget (the issue: no slower than today), and this is where to look when it grows.
import type { Reporter, TestModule } from 'vitest/node';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(6)} s`;
}

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    // Collection (imports, top-level code) plus every test and hook: the time the file held the machine.
    const rows = testModules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, ms: d.collectDuration + d.duration, state: m.state() };
      })
      .sort((a, b) => b.ms - a.ms);
    if (rows.length === 0) return;
    const total = rows.reduce((sum, r) => sum + r.ms, 0);
    const lines = rows.map((r) => `${seconds(r.ms)}  ${r.file}${r.state === 'failed' ? '  (failed)' : ''}`);
    process.stdout.write(
      `\nTime per test file, slowest first (${rows.length} files, ${seconds(total).trim()} in all):\n` +
        `${lines.join('\n')}\n`,
    );
  }
}
