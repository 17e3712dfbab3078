// Sends what the outbox holds: claims due deliveries (at most `maxInFlight` at once), signs each
// attempt with the owning key's current secret(s), records every attempt, and schedules the next
// one by the retry schedule. A 2xx succeeds; 410 Gone stops deliveries to that URL; a target the
// egress policy refuses fails at once; anything else (3xx, 4xx, 5xx, timeout, network) is retried.
import type { ApiKeyStore } from '../db/api-keys.js';
import type { DeliveryRecord, DeliveryStore, AttemptOutcome } from '../db/webhook-deliveries.js';
import type { EgressPolicy } from '../egress/policy.js';
import type { Logger } from '../log.js';
import { retryDelayMs } from './retry-schedule.js';
import { sendWebhook, type SendResult } from './send.js';
import { signedHeaders } from './sign.js';

export interface DispatcherOptions {
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  maxInFlight: number;
  /** Longest sleep between looks at the outbox (work recorded by another process, leases run out). */
  pollIntervalMs: number;
}

export class WebhookDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly keys: ApiKeyStore,
    private readonly egress: EgressPolicy,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Something was recorded (or finished): look at the outbox now rather than at the next poll. */
  wake(): void {
    this.scheduleNext(0);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Stop claiming; let attempts in flight finish (up to `graceMs`). Unfinished ones are retried after their lease. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((done) => setTimeout(done, graceMs).unref()),
    ]);
  }

  private scheduleNext(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), ms);
    this.timer.unref();
  }

  private pump(): void {
    if (this.stopped) return;
    const now = new Date();
    try {
      // The lease outlives one attempt (its timeout) by a margin; a process that died mid-attempt
      // leaves the delivery to be taken up again once it runs out.
      const leaseMs = this.options.timeoutMs + 10_000;
      const revoked = this.deliveries.failRevoked();
      if (revoked) this.log.info({ deliveries: revoked }, 'webhook deliveries of revoked keys failed unsent');
      for (const delivery of this.deliveries.claimDue(this.options.maxInFlight - this.inFlight.size, leaseMs, now)) {
        const attempt = this.attempt(delivery).finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
        this.inFlight.add(attempt);
      }
      const due = this.deliveries.nextDueAt();
      const untilDue = due ? Math.max(0, due.getTime() - Date.now()) : Infinity;
      // When every slot is busy, a finishing attempt wakes the pump; otherwise sleep until the next is due.
      if (this.inFlight.size < this.options.maxInFlight)
        this.scheduleNext(Math.min(untilDue, this.options.pollIntervalMs));
      else this.scheduleNext(this.options.pollIntervalMs);
    } catch (err) {
      // A tick never throws: the database may be busy or closing; try again at the next poll.
      this.log.error({ err }, 'webhook dispatcher could not read the outbox');
      this.scheduleNext(this.options.pollIntervalMs);
    }
  }

  private async attempt(d: DeliveryRecord): Promise<void> {
    const startedAt = new Date();
    let result: SendResult;
    try {
      const headers = signedHeaders(this.keys.signingSecrets(d.keyId, startedAt), d.messageId, d.payload, startedAt);
      result = await sendWebhook(this.egress, d.url, { ...headers }, d.payload, this.options.timeoutMs);
    } catch (err) {
      result = {
        ok: false,
        gone: false,
        blocked: false,
        error: (err as Error).message,
        durationMs: Date.now() - startedAt.getTime(),
      };
    }
    const outcome = this.outcome(d, result, startedAt);
    try {
      this.deliveries.recordAttempt(d, outcome);
      if (result.gone) this.deliveries.stopForUrl(d, 'the receiver answered 410 Gone to an earlier delivery');
    } catch (err) {
      this.log.error({ err, delivery: d.id }, 'could not record a webhook attempt');
      return;
    }
    const log = {
      delivery: d.id,
      event: d.eventType,
      url: d.url,
      attempt: d.attempts + 1,
      status: result.status,
      durationMs: result.durationMs,
    };
    if (outcome.status === 'succeeded') this.log.debug(log, 'webhook delivered');
    else this.log.info({ ...log, error: result.error, next: outcome.nextAttemptAt }, 'webhook attempt failed');
  }

  private outcome(d: DeliveryRecord, result: SendResult, startedAt: Date): AttemptOutcome {
    const base = { startedAt, durationMs: result.durationMs, responseStatus: result.status, error: result.error };
    if (result.ok) return { ...base, status: 'succeeded' };
    if (result.gone)
      return { ...base, status: 'failed', error: 'the receiver answered 410 Gone: no more deliveries to this URL' };
    // The reason (what the host resolved to) goes to the log line below, not to the delivery record its
    // key holder reads: it would describe the internal network to whoever chose the URL.
    if (result.blocked)
      return { ...base, status: 'failed', error: 'not sent: the address is not allowed by the egress policy' };
    const failures = d.attempts + 1 - d.scheduleFrom;
    const delay = retryDelayMs(failures, this.options.retryScheduleMs);
    const error = result.error ?? `the receiver answered HTTP ${result.status}`;
    if (delay === undefined) return { ...base, error, status: 'failed' };
    return { ...base, error, status: 'pending', nextAttemptAt: new Date(Date.now() + delay) };
  }
}
