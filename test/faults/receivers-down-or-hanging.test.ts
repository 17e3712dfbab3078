// Webhook receivers that are down (nothing listens), hang (never answer) or are healthy, all at once
// (the fault 2): each event reaches the healthy receiver once, while the others are still
// being retried — so a hanging receiver holding every send slot for its timeout does not starve the
// healthy one — and the broken ones end failed after the whole retry schedule, each saying why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../helpers/free-ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const TIMEOUT_MS = 3000;
const RETRY_SCHEDULE_MS = [200, 400];
const MAX_IN_FLIGHT = 4;

/** A URL on 127.0.0.1 where nothing listens (a port taken and released). */
async function deadUrl(): Promise<string> {
  const [port] = await freePorts(1);
  return `http://127.0.0.1:${port}/hook`;
}

interface Delivery {
  status: string;
  attempts: number;
  lastError: string | null;
  jobId?: string;
}

describe('receivers down, hanging and healthy at once', () => {
  let svc: TestService;
  let healthy: WebhookReceiver;
  let hanging: WebhookReceiver;
  let key: { key: string; webhookSecret: string };
  beforeAll(async () => {
    [svc, healthy, hanging] = await Promise.all([
      startTestService({
        webhooks: { timeoutMs: TIMEOUT_MS, retryScheduleMs: RETRY_SCHEDULE_MS, maxInFlight: MAX_IN_FLIGHT },
        jobs: { pollIntervalMs: 100 },
      }),
      startWebhookReceiver(),
      startWebhookReceiver(() => {
        /* never answers */
      }),
    ]);
    key = svc.createKey('receivers');
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), healthy?.close(), hanging?.close()]);
  });

  it('the healthy receiver gets each event once while the others are retried; they end failed saying why', async () => {
    const down = await deadUrl();
    const submit = async (webhookUrl: string, i: number) => {
      const res = await svc.call('POST', '/api/image', key.key, {
        html: `<p>${i}</p>`,
        viewport: { width: 32, height: 32 },
        async: true,
        webhookUrl,
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };
    // More hanging deliveries than send slots: they fill every slot for a whole timeout at a time.
    const hangingJobs = await Promise.all(Array.from({ length: MAX_IN_FLIGHT + 2 }, (_, i) => submit(hanging.url, i)));
    const downJobs = await Promise.all([0, 1].map((i) => submit(down, i)));
    const healthyJobs = await Promise.all([0, 1, 2].map((i) => submit(healthy.url, i)));

    const deliveries = async () => {
      const res = await svc.call('GET', '/api/webhook-deliveries?limit=100', key.key);
      return ((await res.json()) as { items: Delivery[] }).items;
    };
    const ofJobs = (all: Delivery[], ids: string[]) => all.filter((d) => ids.includes(d.jobId ?? ''));

    await healthy.waitForHits(healthyJobs.length, 60_000);
    // Not starved: the healthy events arrived while every hanging delivery still had attempts to go.
    const whenHealthyDone = ofJobs(await deliveries(), hangingJobs);
    expect(whenHealthyDone.filter((d) => d.status === 'pending')).toHaveLength(hangingJobs.length);

    const attempts = RETRY_SCHEDULE_MS.length + 1;
    const ended = await until(
      'the broken receivers’ deliveries to end',
      async () => {
        const all = await deliveries();
        const broken = ofJobs(all, [...hangingJobs, ...downJobs]);
        return broken.length === hangingJobs.length + downJobs.length && broken.every((d) => d.status !== 'pending')
          ? all
          : false;
      },
      60_000,
      200,
    );
    for (const d of ofJobs(ended, hangingJobs)) {
      expect(d).toMatchObject({ status: 'failed', attempts });
      expect(d.lastError).toContain(`within ${TIMEOUT_MS} ms`);
    }
    for (const d of ofJobs(ended, downJobs)) {
      expect(d).toMatchObject({ status: 'failed', attempts });
      expect(d.lastError).toMatch(/refused/i);
    }
    for (const d of ofJobs(ended, healthyJobs)) expect(d).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(hanging.hits).toHaveLength(hangingJobs.length * attempts);
    // Each healthy event once, under its own id, signed.
    expect(healthy.hits).toHaveLength(healthyJobs.length);
    expect(new Set(healthy.hits.map((h) => verifyHit(key.webhookSecret, h).data.jobId))).toEqual(new Set(healthyJobs));
  });
});
