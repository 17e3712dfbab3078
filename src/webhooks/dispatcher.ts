// Sends what the outbox holds: claims due deliveries (at most `maxInFlight` at once), signs each
// attempt with the owning key's current secret(s), records every attempt, and schedules the next
// one by the retry schedule. A 2xx succeeds; 410 Gone stops deliveries to that URL; a target the
// egress policy refuses fails at once; anything else (3xx, 4xx, 5xx, timeout, network) is retried.
// Channel deliveries go the same way, sent by the channel's sender instead: the deliveries of one batch
// (a digest, or what quiet hours held) are claimed together and sent as one message, and every one of
// them records that attempt.
import type { EgressPolicy } from '../egress/policy.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { Backend } from '../stores/backend.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { AttemptOutcome, DeliveryRecord } from '../stores/webhook-deliveries.js';
import { retryWhileUnavailable } from '../stores/unavailable.js';
import { retryDelayMs } from './retry-schedule.js';
import { sendWebhook, type SendResult } from './send.js';
import { signedHeaders } from './sign.js';
import type { AlertItem, SendableChannel } from '../channels/deliver.js';
import type { EventType } from './outbox.js';
import { describeActiveSpan, inRootSpan, inSpan, markActiveFailed, SpanKind } from '../tracing/spans.js';

/** Recording stops this long before the lease ends, so it never races a dispatcher that took the delivery over. */
const LEASE_MARGIN_MS = 2000;

export interface DispatcherOptions {
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  maxInFlight: number;
  /** Longest sleep between looks at the outbox (work recorded by another process, leases run out). */
  pollIntervalMs: number;
  /** The cluster's clock (the database's): due times and leases are written by one node, read by all. */
  clock?: Clock;
  /** How channel deliveries are sent; without it they fail ("no channel sender"). */
  channels?: ChannelSending;
}

/** Sending to channels: a channel read with its secrets opened (undefined: deleted), and its sender. */
export interface ChannelSending {
  open(channelId: string): Promise<SendableChannel | undefined>;
  send(channel: SendableChannel, alerts: AlertItem[]): Promise<SendResult>;
}

export class WebhookDispatcher implements Lifecycle {
  readonly name = 'webhook dispatcher';
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** The look at the outbox under way, if any: looks never overlap, or two could fill the same free slots. */
  private looking: Promise<void> | undefined;
  /** Woken during a look: look again as soon as it ends (what woke us may have come after its claim). */
  private wokenWhileLooking = false;
  private readonly onDeliveries = () => this.wake();
  private readonly clock: Clock;

  constructor(
    private readonly backend: Pick<Backend, 'stores' | 'changes'>,
    private readonly egress: EgressPolicy,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  start(): Promise<void> {
    this.stopped = false;
    // A delivery recorded (or redelivered) in this process is sent at once, not at the next poll.
    this.backend.changes.on('deliveries', this.onDeliveries);
    this.wake();
    return Promise.resolve();
  }

  /**
   * Look at the outbox now rather than at the next poll. Deliveries committed in this process wake the
   * dispatcher by themselves; this is for what only the caller knows of (a row another process wrote).
   */
  wake(): void {
    if (this.looking) this.wokenWhileLooking = true;
    this.scheduleNext(0);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Stop claiming; let attempts in flight finish until `deadline` (epoch ms). Unfinished ones are
   * retried after their lease runs out, by whichever process claims them then.
   */
  async stop(deadline: number): Promise<void> {
    this.stopped = true;
    this.backend.changes.off('deliveries', this.onDeliveries);
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    const atDeadline = new Promise((done) => {
      timeout = setTimeout(done, Math.max(0, deadline - Date.now()));
      timeout.unref();
    });
    // A look under way may still start attempts: wait for it first, then for every attempt.
    const drained = (async () => {
      await this.looking;
      await Promise.allSettled([...this.inFlight]);
    })();
    await Promise.race([drained, atDeadline]);
    clearTimeout(timeout);
  }

  private scheduleNext(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), ms);
    this.timer.unref();
  }

  private pump(): void {
    if (this.stopped || this.looking) return; // a look under way looks again when it ends (wokenWhileLooking)
    this.wokenWhileLooking = false;
    this.looking = this.look().then(
      (sleepMs) => this.lookDone(sleepMs),
      (err: unknown) => {
        // A look never throws: the database may be busy or closing; try again at the next poll.
        this.log.error({ err }, 'webhook dispatcher could not read the outbox');
        this.lookDone(this.options.pollIntervalMs);
      },
    );
  }

  private lookDone(sleepMs: number): void {
    this.looking = undefined;
    this.scheduleNext(this.wokenWhileLooking ? 0 : sleepMs);
  }

  /** Claim what is due and start sending it; how long to sleep until the next look. */
  private async look(): Promise<number> {
    const { deliveries } = this.backend.stores;
    const now = this.clock.now();
    // The lease outlives one attempt (its timeout) by a margin; a process that died mid-attempt
    // leaves the delivery to be taken up again once it runs out.
    const leaseMs = this.options.timeoutMs + 10_000;
    const revoked = await deliveries.failRevoked();
    if (revoked) this.log.info({ deliveries: revoked }, 'webhook deliveries of revoked keys failed unsent');
    const claimed = await deliveries.claimDue(this.options.maxInFlight - this.inFlight.size, leaseMs, now);
    for (const group of await this.withBatches(claimed, leaseMs, now)) {
      // The lease's end on this node's own clock: retryWhileUnavailable measures against it.
      const leaseEndsAt = Date.now() + leaseMs;
      const attempt = this.tracedAttempt(group, leaseEndsAt).finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
      this.inFlight.add(attempt);
    }
    const due = await deliveries.nextDueAt();
    const untilDue = due ? Math.max(0, due.getTime() - this.clock.now().getTime()) : Infinity;
    // When every slot is busy, a finishing attempt wakes the pump; otherwise sleep until the next is due.
    if (this.inFlight.size < this.options.maxInFlight) return Math.min(untilDue, this.options.pollIntervalMs);
    return this.options.pollIntervalMs;
  }

  /**
   * The claimed deliveries as what is sent at once: each alone, but a batch's with the rest of that batch
   * that is due (claimed here too), oldest first.
   */
  private async withBatches(claimed: DeliveryRecord[], leaseMs: number, now: Date): Promise<DeliveryRecord[][]> {
    const groups = new Map<string, Map<string, DeliveryRecord>>();
    for (const d of claimed) {
      const key = d.batch ?? d.id;
      if (!groups.has(key)) groups.set(key, new Map());
      groups.get(key)!.set(d.id, d);
    }
    for (const [key, group] of groups) {
      if (!group.values().next().value!.batch) continue;
      for (const d of await this.backend.stores.deliveries.claimBatch(key, leaseMs, now)) group.set(d.id, d);
    }
    return [...groups.values()].map((group) =>
      [...group.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
    );
  }

  /**
   * Each attempt a trace of its own (a webhook's or a channel message's); the request it sends carries its
   * traceparent, and recording the outcome is its `storage` span.
   */
  private tracedAttempt(group: DeliveryRecord[], leaseEndsAt: number): Promise<void> {
    const first = group[0]!;
    const webhook = first.channelId === undefined;
    const attributes = {
      'pagewatch.delivery.id': first.id,
      'pagewatch.delivery.attempt': first.attempts + 1,
      'pagewatch.event.type': first.eventType,
      ...(webhook
        ? { 'server.address': new URL(first.url).hostname } // not the path: a receiver's URL may hold its token
        : {
            'pagewatch.channel.id': first.channelId!,
            'pagewatch.channel.type': first.channelType ?? '',
            'pagewatch.delivery.count': group.length,
          }),
    };
    return inRootSpan(webhook ? 'webhook delivery' : 'channel delivery', { kind: SpanKind.PRODUCER, attributes }, () =>
      webhook ? this.attempt(first, leaseEndsAt) : this.attemptChannel(group, leaseEndsAt),
    );
  }

  /** One message to a channel for all of `group` (one channel's): each delivery records the attempt. */
  private async attemptChannel(group: DeliveryRecord[], leaseEndsAt: number): Promise<void> {
    const first = group[0]!;
    const startedAt = this.clock.now();
    const failed = (error: string): SendResult => ({
      ok: false,
      gone: false,
      blocked: false,
      error,
      durationMs: this.clock.now().getTime() - startedAt.getTime(),
    });
    let result: SendResult;
    let deleted = false;
    try {
      const channel = this.options.channels && (await this.options.channels.open(first.channelId!));
      if (!this.options.channels) result = failed('no channel sender is configured');
      else if (!channel) {
        deleted = true;
        result = failed('not sent: the channel was deleted');
      } else result = await this.options.channels.send(channel, group.map(alertOf));
    } catch (err) {
      result = failed((err as Error).message);
    }
    // One draw and one time for the whole batch: deliveries that failed as often come back due at the same
    // moment, claimed together, as one message again.
    const random = Math.random();
    const decidedAt = this.clock.now();
    try {
      for (const d of group) {
        const outcome = deleted
          ? { startedAt, durationMs: result.durationMs, error: result.error, status: 'failed' as const }
          : this.outcome(d, result, startedAt, random, decidedAt);
        await this.record(d, outcome, leaseEndsAt);
      }
      if (result.gone)
        await this.backend.stores.deliveries.stopForUrl(first, 'the receiver answered 410 Gone to an earlier delivery');
    } catch (err) {
      this.log.error({ err, deliveries: group.map((d) => d.id) }, 'could not record a channel attempt');
      return;
    }
    const log = {
      deliveries: group.map((d) => d.id),
      channel: first.channelId,
      type: first.channelType,
      status: result.status,
      durationMs: result.durationMs,
    };
    if (result.ok) this.log.debug(log, 'channel message delivered');
    else this.log.info({ ...log, error: result.error }, 'channel message attempt failed');
  }

  /** `leaseEndsAt` (this node's epoch ms): after it another dispatcher may send the delivery again. */
  private async attempt(d: DeliveryRecord, leaseEndsAt: number): Promise<void> {
    const startedAt = this.clock.now();
    let result: SendResult;
    try {
      const secrets = await this.backend.stores.keys.signingSecrets(d.keyId, startedAt);
      const headers = signedHeaders(secrets, d.messageId, d.payload, startedAt);
      result = await sendWebhook(this.egress, d.url, { ...headers }, d.payload, this.options.timeoutMs);
    } catch (err) {
      result = {
        ok: false,
        gone: false,
        blocked: false,
        error: (err as Error).message,
        durationMs: this.clock.now().getTime() - startedAt.getTime(),
      };
    }
    const outcome = this.outcome(d, result, startedAt);
    try {
      await this.record(d, outcome, leaseEndsAt);
      if (result.gone)
        await this.backend.stores.deliveries.stopForUrl(d, 'the receiver answered 410 Gone to an earlier delivery');
    } catch (err) {
      // Unrecorded, the delivery is sent again once its lease runs out (same webhook-id: at-least-once).
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

  /**
   * Records the attempt. While the database is unavailable (a restart, a failover) it tries again, backing
   * off, until shortly before the lease ends: a receiver that answered 2xx is then not sent the event again
   * merely because the database blinked. Past the lease another dispatcher may have sent it: give up.
   */
  private record(d: DeliveryRecord, outcome: AttemptOutcome, leaseEndsAt: number): Promise<void> {
    describeAttempt(outcome);
    return inSpan('storage', { 'pagewatch.stored': 'delivery attempt' }, () =>
      this.recordUntraced(d, outcome, leaseEndsAt),
    );
  }

  private recordUntraced(d: DeliveryRecord, outcome: AttemptOutcome, leaseEndsAt: number): Promise<void> {
    return retryWhileUnavailable(
      () => this.backend.stores.deliveries.recordAttempt(d, outcome, this.clock.now()),
      (retryAt) => !this.stopped && retryAt < leaseEndsAt - LEASE_MARGIN_MS,
      (err) =>
        this.log.warn({ err: (err as Error).message, delivery: d.id }, 'recording a webhook attempt failed; retrying'),
    );
  }

  private outcome(
    d: DeliveryRecord,
    result: SendResult,
    startedAt: Date,
    random = Math.random(),
    decidedAt = this.clock.now(),
  ): AttemptOutcome {
    const base = { startedAt, durationMs: result.durationMs, responseStatus: result.status, error: result.error };
    if (result.ok) return { ...base, status: 'succeeded' };
    if (result.gone)
      return { ...base, status: 'failed', error: 'the receiver answered 410 Gone: no more deliveries to this URL' };
    // The reason (what the host resolved to) goes to the log line below, not to the delivery record its
    // key holder reads: it would describe the internal network to whoever chose the URL.
    if (result.blocked)
      return { ...base, status: 'failed', error: 'not sent: the address is not allowed by the egress policy' };
    const failures = d.attempts + 1 - d.scheduleFrom;
    const delay = retryDelayMs(failures, this.options.retryScheduleMs, () => random);
    const error = result.error ?? `the receiver answered HTTP ${result.status}`;
    if (delay === undefined) return { ...base, error, status: 'failed' };
    return { ...base, error, status: 'pending', nextAttemptAt: new Date(decidedAt.getTime() + delay) };
  }
}

/** The attempt's answer on its span; a failed attempt marks it failed (no error text: it may quote a receiver). */
function describeAttempt(outcome: AttemptOutcome): void {
  if (outcome.responseStatus !== undefined) describeActiveSpan({ 'http.response.status_code': outcome.responseStatus });
  if (outcome.status !== 'succeeded')
    markActiveFailed(outcome.responseStatus !== undefined ? String(outcome.responseStatus) : 'not_sent');
}

/** A delivery's recorded body as an alert: the event a webhook receiver would get. */
function alertOf(d: DeliveryRecord): AlertItem {
  const body = JSON.parse(d.payload) as { type: EventType; timestamp: string; data: Record<string, unknown> };
  return { type: body.type, data: body.data, timestamp: body.timestamp };
}
