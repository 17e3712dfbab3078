// The answers of the real service, at every depth, against the schemas GET /openapi.json generates from
// the zod response schemas: each JSON answer (and each webhook a monitor sends) validates with a JSON
// Schema 2020-12 validator, formats included, and every field it carries is one the document names.
// The flows reach the optional parts too: a finished job's result, a capture with changed regions, text
// changes and notifyWhen results, a failed capture, a delivery with its attempts.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, verifyHit, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The document and the answers are walked as untyped JSON, as in openapi.test.ts.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment,
   @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return -- see above */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- see above

// ajv-formats is CommonJS: its default export is the module object under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SETTINGS = {
  webhooks: { retryScheduleMs: [200, 200] },
  jobs: { pollIntervalMs: 100 },
  rateLimit: { anonymousPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 }, // the tests poll often
};
const YEARLY = '0 0 1 1 *';

let svc: TestService;
let fx: FixtureServer;
let receiver: WebhookReceiver;
let key: { key: string; webhookSecret: string };
let doc: Json;
let ajv: Ajv2020;
/** What the watched page shows. */
const page = { price: '$24.99', block: false };

beforeAll(async () => {
  [svc, fx, receiver] = await Promise.all([startTestService(SETTINGS), startFixtureServer(), startWebhookReceiver()]);
  key = svc.createKey('openapi-answers');
  fx.route('/watched', (_req, res) => {
    const block = page.block ? '<div style="width:120px;height:60px;background:#f00"></div>' : '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><body style="margin:0"><p id="price">Price: ${page.price}</p>${block}</body>`);
  });
  doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Json;
  ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'openapi');
});
afterAll(async () => {
  await Promise.all([svc?.close(), fx?.close(), receiver?.close()]);
});

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The schema at a JSON pointer of the document, with its $refs resolved. */
function schemaAt(path: string): Json {
  const found = path.split('/').reduce<Json>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return found.$ref ? schemaAt((found.$ref as string).slice(2)) : found;
}

/** Every field of `value`, at every depth, is one the schema names ($ref, allOf and nullable followed). */
function expectDocumented(value: unknown, schema: Json, path: string): void {
  if (schema.$ref) return expectDocumented(value, schemaAt((schema.$ref as string).slice(2)), path);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) if (schema.items) expectDocumented(item, schema.items, `${path}[${i}]`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const parts: Json[] = [schema, ...((schema.allOf as Json[] | undefined) ?? [])].map((s) =>
    s.$ref ? schemaAt((s.$ref as string).slice(2)) : s,
  );
  const properties: Json = Object.assign({}, ...parts.map((s) => s.properties ?? {}));
  if (Object.keys(properties).length === 0) return; // a map (counts by status): any key
  for (const [name, v] of Object.entries(value)) {
    expect(Object.keys(properties), `${path}.${name} is documented`).toContain(name);
    expectDocumented(v, properties[name], `${path}.${name}`);
  }
}

/** `value` is valid against the schema at `path` (a JSON pointer into the document) and fully documented. */
function expectValid(path: string, value: unknown): void {
  const validate: ValidateFunction | undefined = ajv.getSchema(`openapi#/${path}`);
  expect(validate, path).toBeDefined();
  expect(validate!(value) ? [] : validate!.errors, `${path}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
  expectDocumented(value, schemaAt(path), path.split('/').pop()!);
}
const expectComponent = (name: string, value: unknown) => expectValid(pointer('components', 'schemas', name), value);

async function json(method: string, path: string, status: number, body?: unknown): Promise<Json> {
  const res = await svc.call(method, path, key.key, body);
  if (res.status !== status) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as Json;
}

async function captureNow(monitorId: string, known: Set<string>): Promise<Json> {
  expectComponent('RunAccepted', await json('POST', `/api/monitors/${monitorId}/run`, 202));
  return until('a new capture', async () => {
    const list = await json('GET', `/api/monitors/${monitorId}/captures`, 200);
    const fresh = (list.items as Json[]).find((c) => !known.has(c.id as string));
    if (fresh) known.add(fresh.id as string);
    return fresh;
  });
}

describe('answers against /openapi.json', () => {
  it('operations and errors: /health, /ready, /api/status, the Error body', async () => {
    expectComponent('Health', await (await fetch(`${svc.url}/health`)).json());
    expectComponent('Ready', await (await fetch(`${svc.url}/ready`)).json());
    expectComponent('Status', await (await fetch(`${svc.url}/api/status`)).json());
    expectComponent('Error', await json('GET', '/api/jobs/job_nope', 404));
    const invalid = await json('POST', '/api/image', 400, { html: '<p>x</p>', viewport: { width: -1 } });
    expect(invalid.error.details.length).toBeGreaterThan(0);
    expectComponent('Error', invalid);
  });

  it('renders: "response": "json", an async job from queued to its result, the job list', async () => {
    // A page with one of each diagnostic, so every list's items are checked against the schema too.
    const html =
      `<p>json</p><img src="${fx.url}/status/404"><img src="http://127.0.0.1:1/refused.png">` +
      '<script>console.error("logged");</script><script>throw new Error("thrown")</script>';
    const rendered = await json('POST', '/api/pdf', 200, { html, response: 'json' });
    const diagnostics = rendered.diagnostics as Record<string, unknown[]>;
    for (const list of ['failedResources', 'consoleErrors', 'exceptions'])
      expect(diagnostics[list]!.length, list).toBeGreaterThan(0);
    expectComponent('RenderJson', rendered);
    const queued = await json('POST', '/api/image', 202, { html: '<p>job</p>', async: true });
    expectComponent('Job', queued);
    const done = await until('the job to succeed', async () => {
      const j = await json('GET', `/api/jobs/${queued.id}`, 200);
      return j.status === 'succeeded' && j;
    });
    expect(done.result).toBeDefined();
    expectComponent('Job', done);
    expectComponent('JobList', await json('GET', '/api/jobs', 200));
  });

  it('monitors: the monitor, its captures (changed, with text and rules; failed), its webhooks and deliveries', async () => {
    const monitor = await json('POST', '/api/monitors', 201, {
      url: `${fx.url}/watched`,
      schedule: YEARLY,
      notify: ['change', 'failure', 'capture'],
      webhookUrl: receiver.url,
      capture: { viewport: { width: 320, height: 200 } },
      diff: { confirm: false },
      notifyWhen: [{ selector: '#price', textContains: '$19' }],
    });
    expectComponent('Monitor', monitor);
    const id = monitor.id as string;
    expectComponent('Monitor', await json('PATCH', `/api/monitors/${id}`, 200, { name: 'Price' }));
    expectComponent('MonitorList', await json('GET', '/api/monitors', 200));

    const known = new Set<string>();
    const baseline = await captureNow(id, known);
    page.price = '$19.99';
    page.block = true;
    const changed = await captureNow(id, known);
    expect(changed.changed).toBe(true);
    expect(changed.regions.length).toBeGreaterThan(0);
    expect(changed.textChanges.length).toBeGreaterThan(0);
    expect(changed.conditions.length).toBe(1);
    await json('PATCH', `/api/monitors/${id}`, 200, { url: 'http://127.0.0.1:1/' });
    const failed = await captureNow(id, known);
    expect(failed.status).toBe('failed');
    for (const c of [baseline, changed, failed])
      expectComponent('Capture', await json('GET', `/api/captures/${c.id}`, 200));
    expectComponent('CaptureList', await json('GET', `/api/monitors/${id}/captures`, 200));
    const text = await json('GET', `/api/captures/${changed.id}/text`, 200);
    expect((text.blocks as unknown[]).length).toBeGreaterThan(0);
    expectComponent('CaptureText', text);

    const test = await json('POST', `/api/monitors/${id}/test-webhook`, 202);
    expectComponent('Delivery', test);
    // baseline, changed (capture.completed + monitor.changed), failed, test
    const hits = await receiver.waitForHits(5);
    const types = new Set<string>();
    for (const hit of hits) {
      const event = verifyHit(key.webhookSecret, hit);
      types.add(event.type);
      expectValid(
        pointer('webhooks', event.type, 'post', 'requestBody', 'content', 'application/json', 'schema'),
        event,
      );
    }
    expect([...types].sort()).toEqual(['capture.completed', 'capture.failed', 'monitor.changed', 'monitor.test']);

    const detail = await until('the test delivery to succeed', async () => {
      const d = await json('GET', `/api/webhook-deliveries/${test.id}`, 200);
      return d.status === 'succeeded' && d;
    });
    expect(detail.history.length).toBe(1);
    expectComponent('DeliveryDetail', detail);
    expectComponent('DeliveryList', await json('GET', `/api/webhook-deliveries?monitorId=${id}`, 200));
  });
});
