// Synchronous PDF work has a line of its own (pdf.concurrency, pdf.queueSize), so many tool calls at
// once cannot each start a qpdf process and a pdf-lib worker of pdf.memoryMb. With one slot and no room to
// wait, a call made while a decompression bomb holds the slot is refused at once with 429 queue_full; once
// the bomb has ended at its time bound, the slot serves the next call.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { listProcesses } from '../helpers/processes.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const fixture = (name: string) =>
  readFileSync(join(projectRoot(), 'test/fixtures/pdf-hostile', name)).toString('base64');
// The bomb needs ~20 s of CPU to inflate: it surely holds its slot until this bound ends it.
const TIMEOUT_MS = 4000;

let svc: TestService;
let key: IssuedKey;

beforeAll(async () => {
  svc = await startTestService({ pdf: { concurrency: 1, queueSize: 0, timeoutMs: TIMEOUT_MS } });
  key = svc.createKey('pdf-queue');
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

const metadataOf = (file: string) =>
  svc.post('/api/pdf/metadata', { files: [{ data: fixture(file) }] }, { authorization: `Bearer ${key.key}` });
const myQpdf = () => listProcesses().some((p) => p.comm === 'qpdf' && p.ppid === process.pid);

it('refuses synchronous PDF work past pdf.concurrency + pdf.queueSize with 429, and serves it after', async () => {
  const bomb = metadataOf('bomb.pdf');
  // The bomb holds the one slot once its qpdf runs (the service runs in this process).
  await until('the bomb is being checked by qpdf', myQpdf, 10_000);

  const refused = await metadataOf('plain.pdf');
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  const error = await errorOf(refused);
  expect(error.code).toBe('queue_full');
  expect(error.message).toMatch(/^The PDF queue is full: try again in \d+ s\.$/);

  expect((await bomb).status).toBe(422);
  const served = await metadataOf('plain.pdf');
  expect(served.status).toBe(200);
  expect(((await served.json()) as { pageCount: number }).pageCount).toBeGreaterThanOrEqual(1);
});
