// Export and import of monitors over the real stack: GET /api/monitors/export → POST /api/monitors/import
// into another key gives the same settings back (secrets left out and listed); a dry run creates nothing;
// changedetection.io (its backup zip and url-watches.json) and urlwatch (urls.yaml) are mapped, with what
// does not map listed; hostile inputs are refused with a 400; the key's monitor cap holds.
import { readFileSync } from 'node:fs';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../helpers/service.js';

const FIXTURES = new URL('../fixtures/import/', import.meta.url);
const YEARLY = '0 0 1 1 *';
const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
const CAP = 6;

interface ImportAnswer {
  format: string;
  imported: { id: string; name: string; url: string }[];
  wouldImport?: number;
  skipped: { entry: string; reason: string }[];
  notMapped: { name: string; fields: string[] }[];
}
interface ExportFile {
  format: string;
  version: number;
  exportedAt: string;
  monitors: Record<string, unknown>[];
  secretsOmitted: { name: string; fields: string[] }[];
  notes: string[];
}

describe('monitor export and import', () => {
  let svc: TestService;
  let a: string;

  beforeAll(async () => {
    svc = await startTestService({ monitors: { maxPerKey: CAP } });
    a = svc.createKey('a').key;
  });
  afterAll(async () => {
    await svc?.close();
  });

  const send = (key: string, body: Uint8Array | string, type: string, query = '') =>
    fetch(`${svc.url}/api/monitors/import${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': type },
      body: typeof body === 'string' ? body : new Blob([Buffer.from(body)]),
    });
  async function ok<T>(res: Response, status = 200): Promise<T> {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text.slice(0, 800)}`);
    return JSON.parse(text) as T;
  }
  const monitorsOf = async (key: string) =>
    (await ok<{ items: { id: string }[] }>(await svc.call('GET', '/api/monitors?limit=100', key))).items;
  const exportOf = async (key: string) => ok<ExportFile>(await svc.call('GET', '/api/monitors/export', key));

  it('exports the key’s monitors as POST bodies, secrets left out and listed, and imports them into another key', async () => {
    const owner = svc.createKey('owner').key;
    const other = svc.createKey('other').key;
    await ok(
      await svc.call('POST', '/api/monitors', owner, {
        name: 'Prices',
        url: 'http://127.0.0.1/prices',
        schedule: YEARLY,
        paused: true,
        capture: {
          headers: { 'X-Token': 'hunter2' },
          steps: [
            { action: 'fill', selector: '#user', value: 'me' },
            { action: 'fill', selector: '#pw', value: 'pw-secret', secret: true },
          ],
        },
        diff: { filters: [{ css: '.price' }], ignoreText: ['Updated'] },
      }),
      201,
    );
    await ok(
      await svc.call('POST', '/api/monitors', other, { url: 'http://127.0.0.1/not-mine', schedule: YEARLY }),
      201,
    );
    const file = await exportOf(owner);
    expect(file).toMatchObject({ format: 'pagewatch.monitors', version: 1 });
    expect(file.monitors.map((m) => m.url)).toEqual(['http://127.0.0.1/prices']); // the other key's is not there
    expect(JSON.stringify(file)).not.toMatch(/hunter2|pw-secret|••••/);
    expect(file.secretsOmitted).toEqual([
      { name: 'Prices', fields: ['capture.headers.X-Token', 'capture.steps.1.value'] },
    ]);
    expect(file.notes.join(' ')).toMatch(/channel ids are not exported/i);
    expect(file.monitors[0]).not.toHaveProperty('id');

    const into = svc.createKey('into').key;
    const answer = await ok<ImportAnswer>(await send(into, JSON.stringify(file), 'application/json'));
    expect(answer).toMatchObject({ format: 'pagewatch', skipped: [], notMapped: [] });
    expect(answer.imported).toHaveLength(1);
    const again = await exportOf(into);
    expect(again.monitors).toEqual(file.monitors); // the same settings back
  });

  it('a dry run creates nothing and says how many it would', async () => {
    const key = svc.createKey('dry').key;
    const text = readFileSync(new URL('urls.yaml', FIXTURES), 'utf-8');
    const answer = await ok<ImportAnswer>(await send(key, text, 'application/yaml', '?dryRun=true'));
    expect(answer.imported).toEqual([]);
    expect(answer.wouldImport).toBe(3);
    expect(await monitorsOf(key)).toEqual([]);
  });

  it('maps changedetection.io’s url-watches.json, alone or in its backup zip', async () => {
    const json = readFileSync(new URL('url-watches.json', FIXTURES));
    for (const [type, body] of [
      ['application/json', json],
      ['application/zip', zipSync({ 'url-watches.json': json, 'secret.txt': strToU8('x') })],
    ] as const) {
      const key = svc.createKey('cd').key;
      const answer = await ok<ImportAnswer>(await send(key, body, type));
      expect(answer.format).toBe('changedetection.io');
      expect(answer.imported.map((m) => m.name)).toEqual(['Kettle price', 'http://127.0.0.1/search']);
      expect(answer.skipped).toHaveLength(1);
      expect(answer.skipped[0]!.entry).toBe('Not a web page');
      expect(answer.skipped[0]!.reason).toMatch(/url/);
      const kettle = answer.notMapped.find((n) => n.name === 'Kettle price')!;
      expect(kettle.fields).toEqual(expect.arrayContaining(['trigger_text', 'notification_urls', 'fetch_backend']));
      const [mapped] = (await exportOf(key)).monitors;
      expect(mapped).toMatchObject({
        name: 'Kettle price',
        schedule: '0 */6 * * *',
        paused: false,
        diff: {
          filters: [{ css: '.price' }, { xpath: "//div[@id='stock']" }, { remove: '.ads' }],
          ignoreText: ['Updated at', { pattern: 'visitors: \\d+', flags: 'i' }],
        },
      });
      const search = (await exportOf(key)).monitors[1]!;
      expect(search).toMatchObject({ schedule: '0 0 * * *', paused: true, capture: { method: 'POST' } });
      expect((await exportOf(key)).secretsOmitted).toContainEqual({
        name: 'http://127.0.0.1/search',
        fields: ['capture.body'],
      });
    }
  });

  it('maps changedetection.io tags (uuids of settings.application.tags) to their titles', async () => {
    const key = svc.createKey('cd-tags').key;
    await ok<ImportAnswer>(await send(key, readFileSync(new URL('url-watches.json', FIXTURES)), 'application/json'));
    const [kettle, search] = (await exportOf(key)).monitors;
    expect(kettle).toMatchObject({ name: 'Kettle price', tags: ['Shop'] });
    expect(search).toMatchObject({ tags: [] });
    const byTag = await svc.call('GET', '/api/monitors?tag=shop', key);
    expect(((await byTag.json()) as { items: { name: string }[] }).items.map((m) => m.name)).toEqual(['Kettle price']);
  });

  it('maps urlwatch’s multi-document urls.yaml and skips command jobs with the reason', async () => {
    const key = svc.createKey('uw').key;
    const answer = await ok<ImportAnswer>(
      await send(key, readFileSync(new URL('urls.yaml', FIXTURES), 'utf-8'), 'text/yaml'),
    );
    expect(answer.format).toBe('urlwatch');
    expect(answer.imported.map((m) => m.name)).toEqual(['Kettle shop', 'Browser job', 'Search form']);
    expect(answer.skipped).toEqual([{ entry: 'Disk usage', reason: expect.stringMatching(/shell command/) as string }]);
    expect(answer.notMapped).toEqual([
      { name: 'Browser job', fields: ['filter (grep)'] },
      { name: 'Search form', fields: ['max_tries'] },
    ]);
    const file = await exportOf(key);
    expect(file.monitors[0]).toMatchObject({ url: 'http://127.0.0.1/kettle', diff: { filters: [{ css: '.price' }] } });
    expect(file.monitors[1]).toMatchObject({ diff: { filters: [{ xpath: "//div[@id='stock']" }, { css: '#total' }] } });
    // The form's body and headers are secrets: an export leaves them out and says so.
    expect(file.monitors[2]).toMatchObject({ capture: { method: 'POST' } });
    expect(file.secretsOmitted).toEqual([{ name: 'Search form', fields: ['capture.headers.Accept', 'capture.body'] }]);
  });

  it('refuses hostile and wrong inputs with a 400 (or 413/415) in the contract’s shape', async () => {
    // A zip bomb: url-watches.json of 6 MiB of spaces compresses to a few KB.
    const bomb = zipSync({ 'url-watches.json': new Uint8Array(6 * 1024 * 1024).fill(32) });
    expect(bomb.byteLength).toBeLessThan(100_000);
    let res = await send(a, bomb, 'application/zip');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/over 5242880 bytes uncompressed/);
    // A zip of very many files.
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.txt`, strToU8('x')]));
    res = await send(a, zipSync(many), 'application/zip');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/more than 1000 files/);
    // A zip without the watch list, and bytes that are no zip.
    res = await send(a, zipSync({ 'a.txt': strToU8('x') }), 'application/zip');
    expect((await errorOf(res)).message).toMatch(/no url-watches.json/);
    res = await send(a, 'garbage', 'application/zip');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/not a readable zip/);
    // A YAML alias bomb ("billion laughs").
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      laughs.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    res = await send(a, laughs.join('\n'), 'application/yaml');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/not readable YAML.*alias/i);
    // Garbage JSON, and JSON of neither format.
    res = await send(a, '{"nope":', 'application/json');
    expect((await errorOf(res)).message).toMatch(/not valid JSON/);
    res = await send(a, '{"monitors": []}', 'application/json');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/neither a Pagewatch export/);
    // A content type an import does not read.
    res = await send(a, 'x', 'text/plain');
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('unsupported_media_type');
    expect(await monitorsOf(a)).toEqual([]);
  });

  it('takes a body of exactly 5 MiB and refuses one byte more', async () => {
    const key = svc.createKey('size').key;
    const head = '{"format":"pagewatch.monitors","version":1,"monitors":[],"pad":"';
    const at = head + 'x'.repeat(MAX_IMPORT_BYTES - head.length - 2) + '"}';
    expect(Buffer.byteLength(at)).toBe(MAX_IMPORT_BYTES);
    const answer = await ok<ImportAnswer>(await send(key, at, 'application/json'));
    expect(answer.imported).toEqual([]);
    const res = await send(key, at + ' ', 'application/json');
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('payload_too_large');
  });

  it('skips a bad entry with its reason, and the entries past the key’s monitor cap', async () => {
    const key = svc.createKey('cap').key;
    const monitors = Array.from({ length: CAP + 2 }, (_, i) => ({
      name: `m${i}`,
      url: `http://127.0.0.1/m${i}`,
      schedule: i === 0 ? 'not cron' : YEARLY,
      paused: true,
    }));
    const answer = await ok<ImportAnswer>(
      await send(key, JSON.stringify({ format: 'pagewatch.monitors', version: 1, monitors }), 'application/json'),
    );
    expect(answer.imported.map((m) => m.name)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(answer.skipped.map((s) => s.entry)).toEqual(['m0', 'm7']);
    expect(answer.skipped[0]!.reason).toMatch(/^schedule: /);
    expect(answer.skipped[1]!.reason).toMatch(/already has 6 monitors/);
    expect(await monitorsOf(key)).toHaveLength(CAP);
  });

  it('export is not read as a monitor id, and needs the key', async () => {
    const res = await fetch(`${svc.url}/api/monitors/export`);
    expect(res.status).toBe(401);
    const empty = await exportOf(svc.createKey('empty').key);
    expect(empty.monitors).toEqual([]);
    expect(empty.secretsOmitted).toEqual([]);
  });
});
