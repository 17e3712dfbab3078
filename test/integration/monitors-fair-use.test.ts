// Monitor fair use over the real stack: a schedule faster than monitors.minIntervalSeconds is refused
// (create and PATCH), and a key's stored capture bytes are held under monitors.maxStoredBytesPerKey by
// removing its oldest captures (rows and files) across its monitors, never a current baseline nor the
// capture just taken. Captures are real: a "noise" page (random pixels, which PNG cannot compress)
// makes each about 360 KB, so the smallest allowed cap (1 MiB) is passed within a few captures.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isPng } from '../helpers/png.js';
import { bytesOf, errorOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const CAP = 1024 * 1024; // the smallest monitors.maxStoredBytesPerKey allows
const VIEWPORT = { width: 400, height: 300 };

interface Capture {
  id: string;
  monitorId: string;
  status: string;
  changed: boolean;
  diffUrl?: string;
}

/** A page of deterministic random pixels for `seed`; `seed` changes → every pixel changes. */
function noisePage(seed: number): string {
  return `<!doctype html><style>html,body{margin:0}</style><canvas id=c width=${VIEWPORT.width} height=${VIEWPORT.height}></canvas><script>
    let s = ${seed} >>> 0;
    const rnd = () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) & 255; };
    const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(${VIEWPORT.width}, ${VIEWPORT.height});
    for (let i = 0; i < img.data.length; i += 4) { img.data[i] = rnd(); img.data[i + 1] = rnd(); img.data[i + 2] = rnd(); img.data[i + 3] = 255; }
    c.putImageData(img, 0, 0);
  </script>`;
}

describe('monitor fair use', () => {
  let svc: TestService;
  let fx: FixtureServer;
  let key: string;
  let otherKey: string;
  const seeds = new Map<string, number>(); // fixture path → seed of its noise

  beforeAll(async () => {
    fx = await startFixtureServer();
    for (const path of ['/a', '/b', '/c', '/d']) {
      seeds.set(path, path.charCodeAt(1));
      fx.route(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(noisePage(seeds.get(path)!));
      });
    }
    svc = await startTestService({
      jobs: { pollIntervalMs: 100 },
      monitors: { maxStoredBytesPerKey: CAP },
      rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
    });
    key = svc.createKey('fair-use').key;
    otherKey = svc.createKey('other').key;
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), fx?.close()]);
  });

  async function json<T>(res: Response, status: number): Promise<T> {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  const create = (owner: string, body: Record<string, unknown>) =>
    svc.call('POST', '/api/monitors', owner, {
      url: `${fx.url}/a`,
      schedule: '0 0 1 1 *',
      paused: true,
      capture: { viewport: VIEWPORT },
      diff: { confirm: false },
      ...body,
    });

  async function captures(owner: string, monitorId: string): Promise<Capture[]> {
    return (
      await json<{ items: Capture[] }>(
        await svc.call('GET', `/api/monitors/${monitorId}/captures?limit=100`, owner),
        200,
      )
    ).items;
  }

  /** Capture now and wait until the new capture is recorded; it must have succeeded. */
  async function capture(owner: string, monitorId: string): Promise<Capture> {
    const before = (await captures(owner, monitorId))[0];
    await json(await svc.call('POST', `/api/monitors/${monitorId}/run`, owner), 202);
    const made = await until(
      `a new capture of ${monitorId}`,
      async () => {
        const latest = (await captures(owner, monitorId))[0];
        return latest && latest.id !== before?.id ? latest : undefined;
      },
      60_000,
      100,
    );
    expect(made.status).toBe('succeeded');
    return made;
  }

  const storedBytes = (id: string) =>
    (svc.db.prepare('SELECT stored_bytes AS n FROM captures WHERE id = ?').get(id) as { n: number } | undefined)?.n;
  const fileOf = (c: Capture, diff = false) => join(svc.dataDir, 'captures', c.monitorId, diff ? `${c.id}-diff` : c.id);

  describe('monitors.minIntervalSeconds (60 s by default)', () => {
    it('create: a schedule 60 s apart is accepted; one 30 s apart is a 400 on schedule naming the minimum', async () => {
      expect((await create(key, { schedule: '0,1 * * * *' })).status).toBe(201);
      const refused = await create(key, { schedule: '*/30 * * * * *' });
      expect(refused.status).toBe(400);
      expect(await errorOf(refused)).toMatchObject({
        code: 'invalid_request',
        details: [
          {
            path: 'schedule',
            message: 'runs as little as 30 s apart; the minimum is 60 s between runs (monitors.minIntervalSeconds)',
          },
        ],
      });
    });

    it('PATCH: the same rule; the monitor is unchanged after a refusal', async () => {
      const monitor = await json<{ id: string; schedule: string }>(await create(key, { schedule: '*/5 * * * *' }), 201);
      const refused = await svc.call('PATCH', `/api/monitors/${monitor.id}`, key, { schedule: '0,59 * * * * *' });
      expect(refused.status).toBe(400);
      expect((await errorOf(refused)).details).toEqual([
        { path: 'schedule', message: expect.stringMatching(/as little as 1 s apart.*minimum is 60 s/) as unknown },
      ]);
      expect(
        (await json<{ schedule: string }>(await svc.call('GET', `/api/monitors/${monitor.id}`, key), 200)).schedule,
      ).toBe('*/5 * * * *');
      const ok = await svc.call('PATCH', `/api/monitors/${monitor.id}`, key, { schedule: '* * * * *' });
      expect(ok.status).toBe(200);
    });
  });

  describe('monitors.maxStoredBytesPerKey', () => {
    it('a capture records the bytes of its image, its diff image and its text blocks', async () => {
      const monitor = await json<{ id: string }>(await create(otherKey, { url: `${fx.url}/d` }), 201);
      const textBytes = (c: Capture) => statSync(join(svc.dataDir, 'captures', monitor.id, `${c.id}-text`)).size;
      const first = await capture(otherKey, monitor.id);
      const image = await bytesOf(await svc.call('GET', `/api/captures/${first.id}/image`, otherKey));
      expect(isPng(image)).toBe(true);
      expect(textBytes(first)).toBeGreaterThan(0);
      expect(storedBytes(first.id)).toBe(image.length + textBytes(first));
      seeds.set('/d', 999); // every pixel changes: the next capture has a diff image
      const second = await capture(otherKey, monitor.id);
      expect(second.changed).toBe(true);
      const secondImage = await bytesOf(await svc.call('GET', `/api/captures/${second.id}/image`, otherKey));
      const diff = await bytesOf(await svc.call('GET', `/api/captures/${second.id}/diff`, otherKey));
      expect(storedBytes(second.id)).toBe(secondImage.length + diff.length + textBytes(second));
    });

    it("over the cap, the oldest captures across the key's monitors go (rows and files), never a baseline nor the newest", async () => {
      const a = await json<{ id: string }>(await create(key, { url: `${fx.url}/a` }), 201);
      const b = await json<{ id: string }>(await create(key, { url: `${fx.url}/b` }), 201);
      const otherKeyCaptures = (
        svc.db
          .prepare(
            `SELECT COUNT(*) AS n FROM captures c JOIN monitors m ON m.id = c.monitor_id
        WHERE m.key_id != (SELECT key_id FROM monitors WHERE id = ?)`,
          )
          .get(a.id) as { n: number }
      ).n;

      // A model of the rule, fed with the sizes the service recorded: after each capture, while the
      // key is over the cap, its oldest capture that is neither a monitor's newest (its baseline: the
      // page does not change) nor the one just taken is removed.
      const kept: { capture: Capture; bytes: number }[] = [];
      const removed: Capture[] = [];
      const order = [a.id, a.id, b.id, a.id, b.id, b.id, a.id];
      for (const monitorId of order) {
        const made = await capture(key, monitorId);
        kept.push({ capture: made, bytes: storedBytes(made.id)! });
        expect(kept.at(-1)!.bytes).toBeGreaterThan(CAP / 4); // the noise really is incompressible
        const newestOf = (id: string) => kept.filter((k) => k.capture.monitorId === id).at(-1)!.capture.id;
        const spared = new Set([
          made.id,
          newestOf(a.id),
          ...(kept.some((k) => k.capture.monitorId === b.id) ? [newestOf(b.id)] : []),
        ]);
        let total = kept.reduce((sum, k) => sum + k.bytes, 0);
        while (total > CAP) {
          const victim = kept.findIndex((k) => !spared.has(k.capture.id));
          if (victim < 0) break;
          total -= kept[victim]!.bytes;
          removed.push(kept.splice(victim, 1)[0]!.capture);
        }

        const listed = [...(await captures(key, a.id)), ...(await captures(key, b.id))].map((c) => c.id).sort();
        expect(listed, `after capturing ${monitorId}`).toEqual(kept.map((k) => k.capture.id).sort());
        expect(total).toBeLessThanOrEqual(CAP);
      }
      expect(removed.length).toBeGreaterThanOrEqual(3);
      for (const gone of removed) {
        expect((await svc.call('GET', `/api/captures/${gone.id}`, key)).status).toBe(404);
        await until(`the file of ${gone.id} to be removed`, () => !existsSync(fileOf(gone)));
      }
      for (const { capture: c } of kept) {
        expect(existsSync(fileOf(c))).toBe(true);
        expect((await svc.call('GET', `/api/captures/${c.id}/image`, key)).status).toBe(200);
      }
      // Another key's captures are not this key's to remove.
      expect(
        (
          svc.db
            .prepare(
              `SELECT COUNT(*) AS n FROM captures c JOIN monitors m ON m.id = c.monitor_id
        WHERE m.key_id != (SELECT key_id FROM monitors WHERE id = ?)`,
            )
            .get(a.id) as { n: number }
        ).n,
      ).toBe(otherKeyCaptures);
    });
  });
});
