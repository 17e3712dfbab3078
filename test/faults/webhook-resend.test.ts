// Webhooks are at-least-once (issue #24): how often is an event sent again when the receiver answered
// 2xx but the database went away before the attempt was recorded? The receiver itself stops PostgreSQL
// before it answers, so the recording always meets a dead database:
// - back within the delivery's claim (a restart): the dispatcher records the 2xx once it answers, and the
//   event is not sent again;
// - away past the claim (webhooks.timeoutMs + 10 s after it was taken): sent again exactly once, with the
//   same webhook-id, and then recorded.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.js';
import { databaseOn } from '../helpers/throwaway-database.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway-postgres.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type Hit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let server: ThrowawayPostgres;
let cluster: Cluster;
let node: ClusterNode;
let hooks: WebhookReceiver;
let key: string;
let watch: pg.Pool;

beforeAll(async () => {
  server = await startThrowawayPostgres();
  hooks = await startWebhookReceiver();
  cluster = await startCluster({
    roles: ['all'],
    database: await databaseOn(server),
    // A claim of 15 s (timeout + 10 s); the first retry of a failed attempt would come 5 s after it.
    settings: { PAGEWATCH_WEBHOOKS_TIMEOUT_MS: '5000', PAGEWATCH_WEBHOOKS_RETRY_SCHEDULE_MS: '[5000]' },
  });
  node = cluster.nodes[0]!;
  key = (await cluster.createKey('webhook-resend')).key;
  watch = new pg.Pool({ connectionString: cluster.database.url, max: 2 });
  watch.on('error', () => undefined); // a connection cut by the stop: the next query opens another
}, 180_000);

afterAll(async () => {
  await watch?.end();
  await cluster?.close();
  await hooks?.close();
  await server?.drop();
}, 60_000);

/**
 * One async job whose webhook's first POST is answered 204 only after PostgreSQL is stopped, and
 * `downWhile` has passed (given the delivery's claim end); then PostgreSQL starts again. Resolves with
 * every POST of that event once its delivery is recorded succeeded.
 */
async function resendsAfterOutage(downWhile: (claimEndsAt: number) => Promise<void>): Promise<Hit[]> {
  const res = await node.call('POST', '/api/pdf', key, { html: '<p>hook</p>', async: true, webhookUrl: hooks.url });
  expect(res.status).toBe(202);
  const { id: jobId } = (await res.json()) as { id: string };
  let outage: Promise<void> | undefined;
  hooks.answer = (reply, hit) => {
    if (outage || !hit.body.includes(jobId)) return void reply.writeHead(204).end();
    outage = (async () => {
      const { rows } = await watch.query<{ lease: string }>(
        'SELECT lease_expires_at AS lease FROM webhook_deliveries WHERE job_id = $1',
        [jobId],
      );
      await server.stop('fast');
      reply.writeHead(204).end(); // taken by the receiver; its recording meets a stopped database
      await downWhile(Date.parse(rows[0]!.lease));
      await server.start();
    })();
  };
  await until(`the webhook of ${jobId} to arrive`, () => outage !== undefined, 60_000);
  await outage;
  await until(
    'the delivery to be recorded succeeded',
    async () =>
      (
        await watch
          .query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE job_id = $1', [jobId])
          .catch(() => ({ rows: [] }))
      ).rows[0]?.status === 'succeeded',
    60_000,
    200,
  );
  hooks.answer = (reply) => void reply.writeHead(204).end();
  return hooks.hits.filter((h) => h.body.includes(jobId));
}

it('the database back within the claim: a 2xx is recorded late and the event is not sent again', async () => {
  const hits = await resendsAfterOutage(() => Promise.resolve()); // down only while it stops and starts
  // Recorded succeeded: no dispatcher will claim it again, so the count is final without waiting longer.
  console.log(`restart within the claim: ${hits.length} send(s) of the event`);
  expect(hits).toHaveLength(1);
}, 90_000);

it('the database away past the claim: the event is sent again exactly once, with the same webhook-id', async () => {
  const hits = await resendsAfterOutage(async (claimEndsAt) => {
    await until('the claim to run out', () => Date.now() > claimEndsAt + 1000, 30_000, 100);
  });
  console.log(`outage past the claim: ${hits.length} sends of the event`);
  expect(hits).toHaveLength(2);
  expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
}, 90_000);
