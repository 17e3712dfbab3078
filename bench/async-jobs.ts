// What durability costs: N async image jobs submitted at once, timed until the last job.succeeded
// webhook arrives, against N synchronous renders of the same page kept at the service's capacity
// (8 clients) in the same service. Rounds alternate sync/async so drift on a noisy machine hits both.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { log } from './measure.js';
import { CLI_PATH, type ServiceHandle } from './service.js';
import { percentile } from './stats.js';

export interface AsyncFigures {
  jobs: number;
  rounds: number;
  /** Wall time of each round, ms. */
  syncMs: number[];
  asyncMs: number[];
  /** Sum of async rounds over sum of sync rounds (target ≤ 1.1). */
  ratio: number;
  /** Median time for a submission to be answered 202, ms. */
  submitP50Ms: number;
}

/** The env a service needs for this bench: webhooks to a receiver on loopback, no per-key rate limit. */
export const ASYNC_BENCH_ENV = {
  PAGEWATCH_EGRESS_ALLOW_HOSTS: '["127.0.0.1"]',
  PAGEWATCH_RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
  PAGEWATCH_JOBS_MAX_QUEUED_PER_KEY: '100000',
};

/** A key made with the service's own CLI on its data directory. */
export function createKey(dataDir: string): string {
  const out = execFileSync(process.execPath, [CLI_PATH, 'keys', 'create', '--name', 'bench'], {
    env: { ...process.env, PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  const key = /^key:\s+(\S+)/m.exec(out)?.[1];
  if (!key) throw new Error(`could not read the key from: ${out}`);
  return key;
}

/** Counts job.succeeded webhooks by job id; `until(n)` resolves when n distinct jobs have reported. */
async function startReceiver(): Promise<{
  url: string;
  until(n: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}> {
  let seen = new Set<string>();
  let waiter: { n: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const event = JSON.parse(body) as { type: string; data: { jobId: string } };
      if (event.type !== 'job.succeeded') throw new Error(`bench job failed: ${body}`);
      seen.add(event.data.jobId);
      res.writeHead(204).end();
      if (waiter && seen.size >= waiter.n) waiter.resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    until: (n) =>
      new Promise((resolve) => {
        if (seen.size >= n) resolve();
        else waiter = { n, resolve };
      }),
    reset: () => {
      seen = new Set();
      waiter = undefined;
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function post(url: string, key: string, body: string): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
    signal: AbortSignal.timeout(120_000),
  });
  await res.arrayBuffer();
  return res;
}

export async function measureAsyncJobs(
  svc: ServiceHandle,
  html: string,
  jobs: number,
  rounds: number,
): Promise<AsyncFigures> {
  const key = createKey(svc.dataDir);
  const receiver = await startReceiver();
  const url = `${svc.baseUrl}/api/image`;
  const syncBody = JSON.stringify({ html, format: 'png' });
  const asyncBody = JSON.stringify({ html, format: 'png', async: true, webhookUrl: receiver.url });
  const syncMs: number[] = [];
  const asyncMs: number[] = [];
  const submitMs: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      let t0 = performance.now();
      let issued = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (issued < jobs) {
            issued++;
            const res = await post(url, key, syncBody);
            if (res.status !== 200) throw new Error(`sync render -> ${res.status}`);
          }
        }),
      );
      syncMs.push(performance.now() - t0);

      receiver.reset();
      t0 = performance.now();
      const done = receiver.until(jobs);
      await Promise.all(
        Array.from({ length: jobs }, async () => {
          const s0 = performance.now();
          const res = await post(url, key, asyncBody);
          if (res.status !== 202) throw new Error(`async submit -> ${res.status}`);
          submitMs.push(performance.now() - s0);
        }),
      );
      await done;
      asyncMs.push(performance.now() - t0);
      log(
        `async jobs round ${round + 1}: ${jobs} sync ${Math.round(syncMs[round]!)} ms, ${jobs} async ${Math.round(asyncMs[round]!)} ms`,
      );
    }
  } finally {
    await receiver.close();
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { jobs, rounds, syncMs, asyncMs, ratio: sum(asyncMs) / sum(syncMs), submitP50Ms: percentile(submitMs, 50) };
}
