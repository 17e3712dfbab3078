// Driving a monitor's captures through the API in integration tests: run it now (POST /run) and wait for
// the new capture to be listed. Monitors in these tests are paused with a yearly schedule, so /run is the
// only thing that captures them.
import type { TestService } from './service.js';
import { until } from './until.js';

/** The answer's JSON, after checking its status (the body is in the error when it is not). */
export async function expectJson<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

interface ListedCapture {
  id: string;
  status: string;
  error?: unknown;
}

/**
 * Capture helpers for one service and key. `key` is read at each call (tests make the key in beforeAll);
 * `timeoutMs` bounds the wait for one capture (a capture with a confirm is two page loads).
 */
export function monitorRuns<C extends ListedCapture>(svc: () => TestService, key: () => string, timeoutMs = 45_000) {
  async function latestCapture(monitorId: string): Promise<C | undefined> {
    const list = await expectJson<{ items: C[] }>(
      await svc().call('GET', `/api/monitors/${monitorId}/captures?limit=1`, key()),
      200,
    );
    return list.items[0];
  }

  /** Capture now and wait for the new capture to be listed, whatever its status. */
  async function captureAny(monitor: { id: string; name?: string }): Promise<C> {
    const before = await latestCapture(monitor.id);
    await expectJson(await svc().call('POST', `/api/monitors/${monitor.id}/run`, key()), 202);
    return until(
      `a new capture of ${monitor.name ?? monitor.id}`,
      async () => {
        const latest = await latestCapture(monitor.id);
        return latest && latest.id !== before?.id ? latest : undefined;
      },
      timeoutMs,
      100,
    );
  }

  /** As captureAny, but a capture that did not succeed fails the test with its status and error. */
  async function capture(monitor: { id: string; name?: string }): Promise<C> {
    const made = await captureAny(monitor);
    if (made.status !== 'succeeded')
      throw new Error(`capture of ${monitor.name ?? monitor.id} was ${made.status}: ${JSON.stringify(made.error)}`);
    return made;
  }

  return { latestCapture, captureAny, capture };
}
