// The dispatcher over a real SQLite backend and a real receiver on 127.0.0.1: it wakes when a delivery
// is committed (the backend's 'deliveries' event), not at its poll, and stops by a deadline.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../../src/egress/policy.js';
import { createLogger } from '../../src/log.js';
import type { Backend } from '../../src/stores/backend.js';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { recordEvent } from '../../src/webhooks/outbox.js';
import { openSqliteBackend } from '../contract/sqlite-backend.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// An hour: within a test, only the 'deliveries' event (or an attempt ending) can make it look again.
const POLL_MS = 3_600_000;

let backend: Backend;
let close: () => Promise<void>;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher;
let key: IssuedKey;

beforeEach(async () => {
  ({ backend, close } = await openSqliteBackend());
  receiver = await startWebhookReceiver();
  key = await backend.stores.keys.create('hooks');
  const egress = new EgressPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1'], denyHosts: [] });
  const options = { retryScheduleMs: [60_000], timeoutMs: 10_000, maxInFlight: 4, pollIntervalMs: POLL_MS };
  dispatcher = new WebhookDispatcher(backend, egress, options, createLogger('silent'));
});
afterEach(async () => {
  await dispatcher.stop(Date.now());
  await receiver.close();
  await close();
});

const record = (data: Record<string, unknown>) =>
  backend.transaction((tx) =>
    recordEvent(tx.deliveries, { keyId: key.id, url: receiver.url, type: 'job.succeeded', data }, new Date()),
  );
const statuses = async () => (await backend.stores.deliveries.list(key.id, { limit: 10 })).map((d) => d.status);

describe('WebhookDispatcher', () => {
  it('sends a delivery as soon as its transaction commits, signed with the key secret', async () => {
    await dispatcher.start();
    await record({ n: 1 });
    const [hit] = await receiver.waitForHits(1, 10_000);
    expect(verifyHit(key.webhookSecret, hit!).data).toEqual({ n: 1 });
    await until('the attempt to be recorded', async () => (await statuses())[0] === 'succeeded', 10_000);
    // A second one, recorded while the dispatcher sleeps until its (hour-long) poll.
    await record({ n: 2 });
    await receiver.waitForHits(2, 10_000);
  });

  it('stop(deadline) waits for an attempt in flight that ends before the deadline', async () => {
    let release: (() => void) | undefined;
    receiver.answer = (res: ServerResponse) => {
      release = () => res.writeHead(204).end();
    };
    await dispatcher.start();
    await record({ n: 1 });
    await receiver.waitForHits(1, 10_000);
    const stopped = dispatcher.stop(Date.now() + 30_000);
    release!();
    await stopped;
    // Recorded before stop resolved.
    expect(await statuses()).toEqual(['succeeded']);
    expect(backend.changes.listenerCount('deliveries')).toBe(0);
  });

  it('stop(deadline) returns at the deadline while an attempt hangs; the delivery stays leased', async () => {
    receiver.answer = () => undefined; // never answers
    await dispatcher.start();
    await record({ n: 1 });
    await receiver.waitForHits(1, 10_000);
    const started = Date.now();
    await dispatcher.stop(started + 300);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5_000); // the attempt's own timeout is 10 s
    expect(dispatcher.inFlightCount).toBe(1);
    // Still pending and leased: no other look claims it before the lease runs out.
    expect(await statuses()).toEqual(['pending']);
    expect(await backend.stores.deliveries.claimDue(10, 1000, new Date())).toEqual([]);
  });
});
