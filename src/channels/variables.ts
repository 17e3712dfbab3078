// What a channel template can read (docs/channels-messages.md, "Templates"): one alert's event data made
// into plain named values (monitor, capture, summary, changes, price, conditions, error, links), and for a
// digest the list of them. The built-in messages read the same values, so a template sees what they show.
import type { AlertItem } from './deliver.js';

export interface MonitorInfo {
  name: string;
  url: string;
  tags?: string[];
}

export interface ChangeVariable {
  kind: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  selector: string | null;
  /** Changed blocks: the word-level diff (value, added?, removed?), as in the event. */
  words?: { value: string; added?: true; removed?: true }[];
}

export interface AlertVariables {
  event: string;
  /** One line for a person: "Changed", "Capture failed: …", "Test message", … */
  verdict: string;
  timestamp: string;
  monitor?: { id: string; name: string; url: string; tags: string[] };
  capture?: {
    id: string;
    status: string;
    takenAt: string;
    changed: boolean;
    diffRatio: number | null;
    reason: string | null;
  };
  summary: string | null;
  changes: ChangeVariable[];
  changesTotal: number;
  price?: { price: number | null; currency: string | null; availability: string | null };
  conditions: unknown[];
  error?: { code: string; message: string };
  links: { capture?: string; monitor?: string; image?: string; diff?: string };
  /** monitor.test and channel.test: the event's message. */
  message?: string;
  test?: boolean;
}

export interface MessageVariables extends Partial<AlertVariables> {
  /** Every alert of the message (one, or a digest's several), oldest first. */
  alerts: AlertVariables[];
  count: number;
  digest: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Where the dashboard is: publicUrl when set, else the origin the event's own absolute URLs were made with
 * (the image URL is `<base>/api/captures/…`).
 */
export function serviceBase(publicUrl: string, data: Record<string, unknown>): string | undefined {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const image = str(data.imageUrl);
  const at = image?.indexOf('/api/captures/') ?? -1;
  return image && at > 0 ? image.slice(0, at) : undefined;
}

/** The dashboard's address of a monitor, and of one of its captures. */
export function dashboardLinks(base: string, monitorId: string, captureId?: string) {
  const monitor = `${base}/monitors#/monitors/${encodeURIComponent(monitorId)}`;
  return { monitor, ...(captureId && { capture: `${monitor}/captures/${encodeURIComponent(captureId)}` }) };
}

function verdictOf(item: AlertItem, data: Record<string, unknown>): string {
  const error = data.error as { message?: string } | undefined;
  switch (item.type as string) {
    case 'monitor.changed':
      return 'Changed';
    case 'capture.completed':
      return data.changed === true ? 'Captured: changed' : 'Captured: no change';
    case 'capture.failed':
      return data.status === 'suspect'
        ? `Capture suspect: ${error?.message ?? 'the page read as a failure'}`
        : `Capture failed: ${error?.message ?? 'unknown error'}`;
    case 'monitor.filter_missing':
      return `Filter matched nothing: ${error?.message ?? ''}`.trim();
    case 'monitor.test':
    case 'channel.test':
      return 'Test message';
    default:
      return item.type;
  }
}

/** The variables of one alert. `monitor` is the monitor's record when the alert names one that still exists. */
export function alertVariables(item: AlertItem, monitor: MonitorInfo | undefined, publicUrl: string): AlertVariables {
  const d = item.data;
  const monitorId = str(d.monitorId);
  const captureId = str(d.captureId);
  const base = serviceBase(publicUrl, d);
  const rawChanges = Array.isArray(d.textChanges) ? (d.textChanges as Record<string, unknown>[]) : [];
  const changes: ChangeVariable[] = rawChanges.map((c) => ({
    kind: c.kind === 'added' || c.kind === 'removed' ? c.kind : 'changed',
    before: str(c.before) ?? null,
    after: str(c.after) ?? null,
    selector: str(c.selector) ?? null,
    ...(Array.isArray(c.words) && { words: c.words as ChangeVariable['words'] }),
  }));
  const error = d.error as { code?: unknown; message?: unknown } | undefined;
  const readPrice = 'price' in d || 'availability' in d;
  return {
    event: item.type,
    verdict: verdictOf(item, d),
    timestamp: item.timestamp,
    ...(monitorId && {
      monitor: {
        id: monitorId,
        name: monitor?.name ?? str(d.name) ?? str(d.url) ?? monitorId,
        url: monitor?.url ?? str(d.url) ?? '',
        tags: monitor?.tags ?? [],
      },
    }),
    ...(captureId && {
      capture: {
        id: captureId,
        status: str(d.status) ?? 'unknown',
        takenAt: str(d.takenAt) ?? item.timestamp,
        changed: d.changed === true,
        diffRatio: num(d.diffRatio),
        reason: str(d.reason) ?? null,
      },
    }),
    summary: str(d.summary) ?? null,
    changes,
    changesTotal: num(d.textChangesTotal) ?? changes.length,
    ...(readPrice && {
      price: { price: num(d.price), currency: str(d.currency) ?? null, availability: str(d.availability) ?? null },
    }),
    conditions: Array.isArray(d.conditions) ? d.conditions : [],
    ...(error && { error: { code: str(error.code) ?? 'error', message: str(error.message) ?? '' } }),
    links: {
      ...(base && monitorId && dashboardLinks(base, monitorId, captureId)),
      ...(str(d.imageUrl) && { image: str(d.imageUrl) }),
      ...(str(d.diffUrl) && { diff: str(d.diffUrl) }),
    },
    ...(str(d.message) && { message: str(d.message) }),
    ...(d.test === true && { test: true }),
  };
}

/** One alert: its variables at the top level, and as the only item of `alerts`. A digest: `alerts` only. */
export function messageVariables(alerts: AlertVariables[]): MessageVariables {
  if (alerts.length === 1) return { ...alerts[0]!, alerts, count: 1, digest: false };
  return { event: 'digest', alerts, count: alerts.length, digest: true };
}
