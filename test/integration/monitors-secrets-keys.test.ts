// The key behind monitor secrets across restarts (issue #10): a generated dataDir/secret.key (mode
// 0600) is reused, and one other users can read stops the start; a service started with another key
// fails those monitors' captures with a clear error and sends nothing; and monitors stored in
// plaintext before encryption are sealed at start, once, leaving no plaintext in the database files.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/stores/api-keys.js';
import {
  addPrivatePage,
  databaseBytes,
  type Secrets,
  holdsAny,
  lastSeen,
  MASKED_CAPTURE,
  monitorOf,
  newSecrets,
  runAndWait,
  secretCapture,
  YEARLY,
} from '../helpers/monitor-secrets.js';
import { startServiceOn, type DurableService } from '../helpers/durability-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

let fx: FixtureServer;
let dataDir: string;
let svc: DurableService | undefined;
let key: IssuedKey;

async function restart(overrides: Record<string, unknown> = {}): Promise<DurableService> {
  await svc?.stop();
  svc = await startServiceOn(dataDir, overrides);
  return svc;
}
const captureColumn = (id: string) =>
  (svc!.db.prepare('SELECT capture FROM monitors WHERE id = ?').get(id) as { capture: string }).capture;

beforeAll(async () => {
  fx = await startFixtureServer();
  addPrivatePage(fx);
  dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-secrets-'));
  key = (await restart()).createKey('secrets');
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await fx?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the secrets key', () => {
  it('is generated on first start into dataDir/secret.key with mode 0600, and reused on restart', async () => {
    const path = join(dataDir, 'secret.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const generated = readFileSync(path, 'utf8');
    expect(generated).toMatch(/^[0-9a-f]{64}\n$/);
    const secrets = newSecrets();
    const m = await monitorOf(
      await svc!.call('POST', '/api/monitors', key.key, {
        url: `${fx.url}/private`,
        schedule: YEARLY,
        capture: secretCapture(secrets),
      }),
      201,
    );
    await restart();
    expect(readFileSync(path, 'utf8')).toBe(generated);
    expect((await runAndWait(svc!.call, key, m.id)).status).toBe('succeeded'); // what was sealed before still opens
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });
  });

  it('a key file other users can read stops the start, saying so', async () => {
    await svc!.stop();
    svc = undefined;
    chmodSync(join(dataDir, 'secret.key'), 0o640);
    await expect(startServiceOn(dataDir)).rejects.toThrow(
      /secret\.key can be read by other users \(mode 0640\).*chmod 600/,
    );
    chmodSync(join(dataDir, 'secret.key'), 0o600);
    await restart();
  });

  it('another key fails the captures of monitors with secrets, saying why, and the page gets no request', async () => {
    const secrets = newSecrets();
    const m = await monitorOf(
      await svc!.call('POST', '/api/monitors', key.key, {
        url: `${fx.url}/private`,
        schedule: YEARLY,
        capture: secretCapture(secrets),
      }),
      201,
    );
    await restart({ secrets: { key: randomBytes(32).toString('hex') } });
    const requestsBefore = fx.requests.length;
    const failed = await runAndWait(svc!.call, key, m.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      code: 'render_failed',
      message: expect.stringMatching(/secrets .* cannot be decrypted: sealed with another key/) as unknown,
    });
    expect(failed.error!.message).toMatch(/secrets\.key or dataDir\/secret\.key/);
    expect(fx.requests.length).toBe(requestsBefore); // decrypting comes before rendering: nothing was sent
    // The monitor is still shown (masked), and a monitor without secrets captures as before.
    expect((await monitorOf(await svc!.call('GET', `/api/monitors/${m.id}`, key.key))).capture).toMatchObject(
      MASKED_CAPTURE,
    );
    const plain = await monitorOf(
      await svc!.call('POST', '/api/monitors', key.key, {
        url: `${fx.url}/private`,
        schedule: YEARLY,
        capture: { httpCredentials: { username: 'watcher', password: 'x' } },
      }),
      201,
    );
    expect((await runAndWait(svc!.call, key, plain.id)).status).toBe('succeeded');

    await restart(); // the right key again
    expect((await runAndWait(svc!.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });
  });
});

describe('monitors stored before encryption', () => {
  it('are sealed at start, once, with no plaintext left in the database or WAL file', async () => {
    const secrets = newSecrets();
    const older = newSecrets();
    const create = async () =>
      monitorOf(
        await svc!.call('POST', '/api/monitors', key.key, {
          url: `${fx.url}/private`,
          schedule: YEARLY,
          capture: { viewport: { width: 320, height: 200 } },
        }),
        201,
      );
    const m = await create();
    const gone = await create();
    await svc!.stop();
    svc = undefined;
    // What the code before this change wrote: the capture options as given, secrets in the clear.
    // A long css puts them on overflow pages too: a rewrite frees those pages, which keep their bytes
    // until the file is rebuilt.
    const legacy = new Database(join(dataDir, 'pagewatch.db'));
    const stored = JSON.parse(
      legacy.prepare('SELECT capture FROM monitors WHERE id = ?').pluck().get(m.id) as string,
    ) as object;
    const withSecrets = (s: Secrets, padding: number) =>
      JSON.stringify({ ...secretCapture(s), ...stored, css: `/* ${'x'.repeat(padding)} */`, ...secretCapture(s) });
    legacy.prepare('UPDATE monitors SET capture = ? WHERE id = ?').run(withSecrets(secrets, 12_000), m.id);
    // A monitor deleted under the old code left its secrets behind in free pages.
    legacy.prepare('UPDATE monitors SET capture = ? WHERE id = ?').run(withSecrets(older, 60_000), gone.id);
    legacy.prepare('DELETE FROM monitors WHERE id = ?').run(gone.id);
    legacy.close();
    expect(holdsAny(databaseBytes(dataDir), secrets)).toEqual(Object.values(secrets)); // the test starts from plaintext
    expect(holdsAny(databaseBytes(dataDir), older)).toEqual(Object.values(older));

    await restart();
    expect(holdsAny(databaseBytes(dataDir), secrets)).toEqual([]);
    expect(holdsAny(databaseBytes(dataDir), older)).toEqual([]);
    const sealed = captureColumn(m.id);
    const capture = JSON.parse(sealed) as {
      headers: Record<string, string>;
      httpCredentials: { username: string; password: string };
    };
    expect(capture.headers['X-Api-Token']).toMatch(/^enc:v1:/);
    expect(capture.httpCredentials).toMatchObject({
      username: 'watcher',
      password: expect.stringMatching(/^enc:v1:/) as unknown,
    });
    expect((await monitorOf(await svc!.call('GET', `/api/monitors/${m.id}`, key.key))).capture).toMatchObject(
      MASKED_CAPTURE,
    );
    expect((await runAndWait(svc!.call, key, m.id)).status).toBe('succeeded');
    expect(lastSeen(fx)).toEqual({ header: secrets.header, cookie: secrets.cookie, password: secrets.password });

    await restart(); // the pass again: nothing left to seal, nothing rewritten
    expect(captureColumn(m.id)).toBe(sealed);
  });
});
