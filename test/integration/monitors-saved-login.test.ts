// Saved logins end to end (capture.saveLogin): the real service (real Chromium, real SQLite file) signs in
// to a fixture site through its form, keeps the browser state sealed, and starts the next capture from it
// without posting the form again — until the site ends the session (loggedInWhen fails: the steps run and
// the state is replaced), the login expires on the service's clock (a TestClock), the user forgets it, or
// the steps change. Another key's monitor of the same site never gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureView, MonitorView } from '../../src/monitors/view.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { addLoginSite, loginSteps, type LoginSite } from '../helpers/login-site.js';
import { databaseBytes } from '../helpers/monitor-secrets.js';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';
import { TestClock } from '../helpers/test-clock.js';
import { until } from '../helpers/until.js';
import { monitor as monitorAnswer } from '../../src/http/schemas/responses/monitors.js';
import { capture as captureAnswer } from '../../src/http/schemas/responses/captures.js';

const HOUR = 3_600_000;
const TTL_HOURS = 168;

let service: TestService;
let fx: FixtureServer;
let site: LoginSite;
let keyA: string;
let keyB: string;
const clock = new TestClock('2026-11-22T10:00:00.000Z');

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 800)}`);
  return JSON.parse(text) as T;
}

const savingMonitor = (key: string, over: Record<string, unknown> = {}) =>
  service.call('POST', '/api/monitors', key, {
    url: `${fx.url}/account`,
    schedule: '0 0 1 1 *',
    paused: true,
    capture: {
      viewport: { width: 400, height: 300 },
      steps: loginSteps(site.password),
      saveLogin: true,
      loggedInWhen: { text: 'Signed in as' },
      ...over,
    },
  });

type Capture = CaptureView & { error?: { code: string; message: string } };

/** Run now and wait for the capture it records. */
async function capture(key: string, monitorId: string): Promise<Capture> {
  const list = async () =>
    (await json<{ items: Capture[] }>(await service.call('GET', `/api/monitors/${monitorId}/captures`, key), 200))
      .items;
  const before = (await list()).length;
  // The clock stands still unless moved: captures are listed by when they were taken, so each is a second apart.
  clock.advance(1000);
  expect((await service.call('POST', `/api/monitors/${monitorId}/run`, key)).status).toBe(202);
  const done = await until(
    'the capture',
    async () => {
      const items = await list();
      return items.length > before ? items[0] : undefined;
    },
    60_000,
    100,
  );
  expect(done.error).toBeUndefined();
  return done;
}

/** The capture's text as compared, one string. */
async function textOf(key: string, captureId: string): Promise<string> {
  const { blocks } = await json<{ blocks: { text: string }[] }>(
    await service.call('GET', `/api/captures/${captureId}/text`, key),
    200,
  );
  return blocks.map((b) => b.text).join('\n');
}

const monitorOf = async (key: string, id: string) =>
  json<MonitorView & { login?: { savedAt: string; expiresAt: string; origins: string[] } }>(
    await service.call('GET', `/api/monitors/${id}`, key),
    200,
  );

const loginRow = (monitorId: string) =>
  service.db.prepare('SELECT * FROM monitor_logins WHERE monitor_id = ?').get(monitorId) as
    { state: string; key_id: string; saved_at: string; expires_at: string; origins: string } | undefined;

const tokenIn = (text: string) => /Token (tok-\w+)/.exec(text)?.[1];

beforeAll(async () => {
  fx = await startFixtureServer({ host: '127.0.0.3' });
  site = addLoginSite(fx);
  service = await startTestService(
    {
      egress: { allowHosts: ['127.0.0.1', '127.0.0.3'] },
      jobs: { pollIntervalMs: 100 },
      monitors: { loginTtlHours: TTL_HOURS },
    },
    { clock },
  );
  keyA = service.createKey('a').key;
  keyB = service.createKey('b').key;
});

afterAll(async () => {
  await service?.close();
  await fx?.close();
});

describe('saved logins', () => {
  let id: string;
  let firstToken: string | undefined;

  it('refuses saveLogin without steps (400 naming the field)', async () => {
    const res = await savingMonitor(keyA, { steps: [] });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('invalid_request');
    expect(err.details?.map((d) => d.path)).toEqual(['capture.saveLogin']);
    expect(err.details?.[0]?.message).toContain('add capture.steps');
  });

  it('the first capture runs the steps and saves the state, sealed; the second starts signed in', async () => {
    id = (await json<MonitorView>(await savingMonitor(keyA), 201)).id;
    expect((await monitorOf(keyA, id)).login).toBeUndefined();

    const first = await capture(keyA, id);
    expect(first.login).toBe('saved');
    expect(site.loginPosts()).toBe(1);
    const firstText = await textOf(keyA, first.id);
    expect(firstText).toContain('Signed in as ann');
    firstToken = tokenIn(firstText);
    expect(firstToken).toBeDefined();

    const { login } = await monitorOf(keyA, id);
    expect(login).toEqual({
      savedAt: clock.now().toISOString(), // the clock has not moved since the capture
      expiresAt: new Date(clock.now().getTime() + TTL_HOURS * HOUR).toISOString(),
      origins: [fx.url],
    });
    // Sealed at rest: neither the session cookie nor the localStorage token is in the row or the file.
    const row = loginRow(id)!;
    expect(row.state).toMatch(/^enc:v1:/);
    const sid = site.issued[0]!;
    expect(row.state).not.toContain(sid);
    expect(databaseBytes(service.dataDir).includes(Buffer.from(sid))).toBe(false);
    expect(databaseBytes(service.dataDir).includes(Buffer.from(firstToken!))).toBe(false);

    // Both answers are as documented: the response schemas (the OpenAPI document's source) take them.
    const limits = {
      maxFullPageHeight: 16_384,
      maxImagePixels: 50_000_000,
      maxTimeoutMs: 3_600_000,
      maxRetention: 1000,
      minIntervalSeconds: 1,
    };
    expect(monitorAnswer(limits).safeParse(await monitorOf(keyA, id)).error).toBeUndefined();
    expect(captureAnswer.safeParse(first).error).toBeUndefined();

    const second = await capture(keyA, id);
    expect(second.login).toBe('reused');
    expect(site.loginPosts()).toBe(1); // no login POST: the saved cookie signed in
    const secondText = await textOf(keyA, second.id);
    expect(secondText).toContain('Signed in as ann');
    expect(tokenIn(secondText)).toBe(firstToken); // the localStorage came back too
  });

  it('when loggedInWhen fails (the site ended the session) the steps run again and the state is replaced', async () => {
    const before = loginRow(id)!;
    site.endSessions();
    clock.advance(HOUR);
    const third = await capture(keyA, id);
    expect(third.login).toBe('saved');
    expect(site.loginPosts()).toBe(2);
    const text = await textOf(keyA, third.id);
    expect(text).toContain('Signed in as ann');
    // Started from a clean context: the old localStorage token is gone, a new one was set.
    expect(tokenIn(text)).not.toBe(firstToken);
    const after = loginRow(id)!;
    expect(after.state).not.toBe(before.state);
    expect(after.saved_at).toBe(clock.now().toISOString());

    const fourth = await capture(keyA, id);
    expect(fourth.login).toBe('reused');
    expect(site.loginPosts()).toBe(2);
  });

  it('past monitors.loginTtlHours (on the service clock) the steps run again: expired', async () => {
    clock.advance(TTL_HOURS * HOUR);
    const expired = await capture(keyA, id);
    expect(expired.login).toBe('expired');
    expect(site.loginPosts()).toBe(3);
    expect((await monitorOf(keyA, id)).login?.savedAt).toBe(clock.now().toISOString());
    expect((await capture(keyA, id)).login).toBe('reused');
    expect(site.loginPosts()).toBe(3);
  });

  it("is never shared between keys: another key's monitor of the site signs in for itself", async () => {
    // Key B sees nothing of key A's monitor or its login, and cannot forget it.
    expect((await service.call('GET', `/api/monitors/${id}`, keyB)).status).toBe(404);
    const forget = await service.call('DELETE', `/api/monitors/${id}/login`, keyB);
    expect(forget.status).toBe(404);
    expect((await errorOf(forget)).code).toBe('not_found');
    expect(loginRow(id)).toBeDefined();

    const idB = (await json<MonitorView>(await savingMonitor(keyB), 201)).id;
    const posts = site.loginPosts();
    const first = await capture(keyB, idB);
    expect(first.login).toBe('saved');
    expect(site.loginPosts()).toBe(posts + 1);
    expect(loginRow(idB)!.key_id).not.toBe(loginRow(id)!.key_id);
  });

  it('a state over 256 KiB is not kept: refused, and the steps run every time', async () => {
    const steps = [...loginSteps(site.password), { action: 'goto', value: `${fx.url}/bloat?kib=300` }];
    const bloated = (await json<MonitorView>(await savingMonitor(keyA, { steps }), 201)).id;
    const posts = site.loginPosts();
    const first = await capture(keyA, bloated);
    expect(first.status).toBe('succeeded');
    expect(first.login).toBe('refused');
    expect(loginRow(bloated)).toBeUndefined();
    expect((await monitorOf(keyA, bloated)).login).toBeUndefined();
    expect((await capture(keyA, bloated)).login).toBe('refused');
    expect(site.loginPosts()).toBe(posts + 2);
  });

  it('the OpenAPI document names the fields and the endpoint', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    expect(Object.keys(doc.paths['/api/monitors/{id}/login']!.delete!.responses)).toContain('204');
    expect(doc.components.schemas.Monitor!.properties).toHaveProperty('login');
    expect(doc.components.schemas.Capture!.properties.login!.enum).toEqual(['saved', 'reused', 'expired', 'refused']);
  });

  it('DELETE /api/monitors/{id}/login forgets it: the next capture runs the steps', async () => {
    expect((await service.call('DELETE', `/api/monitors/${id}/login`, keyA)).status).toBe(204);
    expect(loginRow(id)).toBeUndefined();
    expect((await monitorOf(keyA, id)).login).toBeUndefined();
    expect((await service.call('DELETE', `/api/monitors/${id}/login`, keyA)).status).toBe(204); // nothing left: still 204
    const posts = site.loginPosts();
    expect((await capture(keyA, id)).login).toBe('saved');
    expect(site.loginPosts()).toBe(posts + 1);
  });

  it('changing the steps forgets it; changing the schedule does not', async () => {
    expect(loginRow(id)).toBeDefined();
    const schedule = await service.call('PATCH', `/api/monitors/${id}`, keyA, { schedule: '0 0 2 1 *' });
    expect((await json<{ login?: unknown }>(schedule, 200)).login).toBeDefined();
    const steps = [...loginSteps(site.password), { action: 'waitForSelector', selector: '#who' }];
    const patched = await json<{ login?: unknown }>(
      await service.call('PATCH', `/api/monitors/${id}`, keyA, { capture: { steps } }),
      200,
    );
    expect(patched.login).toBeUndefined();
    expect(loginRow(id)).toBeUndefined();
    const posts = site.loginPosts();
    expect((await capture(keyA, id)).login).toBe('saved');
    expect(site.loginPosts()).toBe(posts + 1);
  });
});
