// The LISTEN side of change topics on PostgreSQL: one dedicated connection (never a pooled one: a pooled
// connection goes back to the pool and would stop hearing) that LISTENs on the `pagewatch` channel and
// hands each topic to `onTopic`. When the connection is lost it reconnects with backoff (0.25 s doubling
// to 30 s); notifications sent meanwhile are lost, so on every reconnect `onResync` runs, and the owner
// wakes its consumers once (they poll anyway: NOTIFY is a hint, docs/postgresql.md).
import pg from 'pg';
import { CHANGE_TOPICS, type ChangeTopic } from '../../backend.js';

export const CHANNEL = 'pagewatch';
const TOPICS: readonly string[] = CHANGE_TOPICS;
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 30_000;

export interface ListenEvents {
  onTopic(topic: ChangeTopic, senderPid: number): void;
  onResync(): void;
  onError(message: string): void;
}

export class ChangeListener {
  private client: pg.Client | undefined;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private connecting: Promise<void> | undefined;
  private connectedBefore = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly events: ListenEvents,
  ) {}

  /** Connects in the background; resolves once the first attempt has ended (listening or not). */
  start(): Promise<void> {
    return (this.connecting = this.connect());
  }

  /** Whether the LISTEN connection is up now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.config);
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      if (this.closed) return;
      this.events.onError(err?.message ?? 'connection ended');
      client.end().catch(() => undefined);
      this.retryLater();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload && TOPICS.includes(msg.payload))
        this.events.onTopic(msg.payload as ChangeTopic, msg.processId);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    if (this.connectedBefore) this.events.onResync(); // the first connect missed nothing
    this.connectedBefore = true;
  }

  private retryLater(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connecting = this.connect();
    }, delay);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
