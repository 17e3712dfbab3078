// Monitors and captures as the API shows them (/docs, "Monitors"), and the thin data of
// their webhook events: ids, figures and absolute URLs, never image bytes.
import { resultPath, type ConditionResult } from '../domain/capture-findings.js';
import type { CaptureRecord } from '../stores/captures.js';
import type { MonitorRecord } from '../stores/monitors.js';
import type { SavedLoginRecord } from '../stores/logins.js';
import { maskSecrets } from './capture-secrets.js';
import { summarize } from '../diff/text/summary.js';

/** How many text changes a monitor.changed event carries (the capture keeps up to MAX_TEXT_CHANGES). */
export const EVENT_TEXT_CHANGES = 10;

/**
 * Capture secrets (header and cookie values, the password) are write-only: shown as "••••". `login`: the
 * monitor's saved login, shown by when it was saved, when it expires and whose origins it holds (never
 * the state itself).
 */
export function monitorView(m: MonitorRecord, login?: SavedLoginRecord) {
  return {
    id: m.id,
    ...m.settings,
    // Monitors stored before saved logins have no saveLogin: they keep none.
    capture: { ...maskSecrets(m.settings.capture), saveLogin: m.settings.capture.saveLogin ?? false },
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    ...(m.lastRunAt && { lastRunAt: m.lastRunAt }),
    ...(m.nextRunAt && { nextRunAt: m.nextRunAt }),
    ...(m.lastStatus && { lastStatus: m.lastStatus }),
    ...(m.lastChangeAt && { lastChangeAt: m.lastChangeAt }),
    skippedRuns: m.skippedRuns,
    ...(login && { login: { savedAt: login.savedAt, expiresAt: login.expiresAt, origins: login.origins } }),
  };
}
export type MonitorView = ReturnType<typeof monitorView>;

export const imageUrl = (baseUrl: string, captureId: string) => `${baseUrl}/api/captures/${captureId}/image`;
export const diffUrl = (baseUrl: string, captureId: string) => `${baseUrl}/api/captures/${captureId}/diff`;

export function captureView(c: CaptureRecord, baseUrl: string) {
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    reason: c.reason,
    takenAt: c.takenAt,
    durationMs: c.durationMs,
    width: c.width,
    height: c.height,
    changed: c.changed,
    confirmed: c.confirmed,
    diffPixels: c.diffPixels,
    diffRatio: c.diffRatio,
    regions: c.regions,
    baselineId: c.baselineId,
    ...(c.imageKey && { imageUrl: imageUrl(baseUrl, c.id) }),
    ...(c.diffKey && { diffUrl: diffUrl(baseUrl, c.id) }),
    ...(c.truncated && { truncated: true }),
    ...(c.error && { error: c.error }),
    ...(c.login && { login: c.login }),
    ...contentAndProduct(c),
    ...(c.status === 'succeeded' && {
      summary: summarize(c.textChanges, c.textChangesTotal),
      textChanges: c.textChanges,
      textChangesTotal: c.textChangesTotal,
      conditions: conditionsView(c.conditions),
      conditionErrors: c.conditionErrors,
      conditionsMet: c.conditionsMet,
    }),
  };
}
export type CaptureView = ReturnType<typeof captureView>;

/** Rule results with their path: those recorded before groups had none, and were at the top level. */
function conditionsView(conditions: ConditionResult[]) {
  return conditions.map((r) => ({ ...r, path: resultPath(r) }));
}

/** What the URL served, and the product's price and stock: shown when the capture read them. */
function contentAndProduct(c: CaptureRecord) {
  return {
    ...(c.content && { content: c.content }),
    ...(c.product && {
      price: c.product.price,
      currency: c.product.currency,
      availability: c.product.availability,
      priceSource: c.product.source,
    }),
  };
}

/** `data` of capture.completed, capture.failed and monitor.changed. */
export function captureEventData(m: MonitorRecord, c: CaptureRecord): Record<string, unknown> {
  const data = eventIdentity(m, c);
  if (c.status === 'failed') return { ...data, error: c.error };
  return {
    ...data,
    ...(c.error && { error: c.error }), // a suspect capture's reason
    changed: c.changed,
    baselineId: c.baselineId,
    diffPixels: c.diffPixels,
    diffRatio: c.diffRatio,
    regions: c.regions,
    summary: summarize(c.textChanges, c.textChangesTotal),
    textChanges: c.textChanges.slice(0, EVENT_TEXT_CHANGES),
    textChangesTotal: c.textChangesTotal,
    conditions: conditionsView(c.conditions),
    conditionErrors: c.conditionErrors,
    conditionsMet: c.conditionsMet,
    ...contentAndProduct(c),
    imageUrl: imageUrl(m.baseUrl, c.id),
    ...(c.diffKey && { diffUrl: diffUrl(m.baseUrl, c.id) }),
    ...(c.baselineId && { baselineImageUrl: imageUrl(m.baseUrl, c.baselineId) }),
  };
}

/**
 * `data` of monitor.test: which monitor asked, and that no capture was taken. Thin like the other events;
 * a receiver that routes on `data.monitorId` sees the same field as in a real event.
 */
export function testEventData(m: MonitorRecord): Record<string, unknown> {
  return {
    monitorId: m.id,
    name: m.settings.name,
    url: m.settings.url,
    test: true,
    message: 'A test event, sent on request: no capture was taken.',
  };
}

/**
 * `data` of monitor.filter_missing: the capture that made the streak reach diff.filterMissingAfter, its
 * reason (`error`: which filter matched nothing) and how many captures in a row it has been.
 */
export function filterMissingEventData(
  m: MonitorRecord,
  c: CaptureRecord,
  missingCount: number,
): Record<string, unknown> {
  return { ...eventIdentity(m, c), error: c.error, missingCount };
}

/** What every capture event starts with: which monitor and capture, and how it went. */
function eventIdentity(m: MonitorRecord, c: CaptureRecord): Record<string, unknown> {
  return {
    monitorId: m.id,
    captureId: c.id,
    url: m.settings.url,
    status: c.status,
    reason: c.reason,
    takenAt: c.takenAt,
  };
}
