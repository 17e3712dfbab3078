// GET /openapi.json against the real service: a valid OpenAPI 3.1 document, generated with the
// service's configured limits, listing exactly the routes the app serves; and requests built from its
// schemas alone are accepted by the service (renders answer the right bytes, a monitor is created).
import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { createApp, type AppDeps } from '../../src/http/app.js';
import { httpLimits } from '../../src/http/limits.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { parsePdf } from '../helpers/pdf.js';
import { decodePng, isPng } from '../helpers/png.js';
import { bytesOf, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

// The document is walked by path and its shape is what these tests check, so it is read as untyped JSON
// (typing every step would only restate the assertions as casts).
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment,
   @typescript-eslint/no-unsafe-argument -- see above */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- see above

const OVERRIDES = { limits: { maxTimeoutMs: 90_000 }, monitors: { maxRetention: 55 } };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let svc: TestService;
let doc: Json;
let key: string;

beforeAll(async () => {
  svc = await startTestService(OVERRIDES);
  key = svc.createKey('openapi').key;
  const res = await fetch(`${svc.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await res.json()) as Json;
});
afterAll(async () => {
  await svc?.close();
});

/** Every (method, path) the app serves, read from the Koa routers createApp wires (HEAD comes with GET). */
function servedRoutes(): string[] {
  const config = loadConfig({ env: {}, overrides: OVERRIDES });
  const dummy = {} as never;
  const app = createApp({
    log: dummy,
    renderer: dummy,
    pdfEngine: dummy,
    jobs: dummy,
    monitors: dummy,
    channels: dummy,
    feeds: dummy,
    deliveries: dummy,
    publicUrl: '',
    readiness: dummy,
    keys: dummy,
    limits: httpLimits(config),
    auth: config.auth,
    rateLimit: config.rateLimit,
    rateLimits: dummy,
    trustProxy: 0,
    status: dummy,
    metrics: dummy,
    config,
    isShuttingDown: () => false,
  } satisfies AppDeps);
  const routers = app.middleware
    .map((m) => (m as { router?: Router }).router)
    .filter((r): r is Router => r !== undefined);
  expect(routers.length).toBeGreaterThanOrEqual(8);
  return routers.flatMap((r) =>
    r.stack.flatMap((layer) =>
      layer.methods
        .filter((m) => m !== 'HEAD' || !layer.methods.includes('GET'))
        .map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
    ),
  );
}

function documentedRoutes(): string[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

function operations(): [string, Json][] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map(
      (m) => [`${m.toUpperCase()} ${path}`, (item as Json)[m] as Json] as [string, Json],
    ),
  );
}

const schemaAt = (ref: string): Json => {
  expect(ref).toMatch(/^#\/components\/schemas\//);
  return doc.components.schemas[ref.slice('#/components/schemas/'.length)] as Json;
};

/** The JSON body a client would build from the document: the source, plus every property's default. */
function bodyFromDefaults(schema: Json, source: Json): Json {
  const body: Json = { ...source };
  for (const [name, prop] of Object.entries(schema.properties as Json)) {
    if ('default' in (prop as Json)) body[name] = (prop as Json).default;
  }
  return body;
}

/** Top-level shape check of an answer against a (hand-written or generated) response schema. */
function expectShape(value: Json, schema: Json): void {
  for (const name of (schema.required as string[] | undefined) ?? []) expect(value, `has ${name}`).toHaveProperty(name);
  const known = Object.keys(schema.properties as Json);
  for (const name of Object.keys(value)) expect(known, `${name} is documented`).toContain(name);
}

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe(PACKAGE_VERSION);
    expect(doc.servers).toEqual([{ url: '/' }]);

    const refs = new Set<string>();
    JSON.stringify(doc, (k, v: unknown) => {
      if (k === '$ref') refs.add(v as string);
      return v;
    });
    expect(refs.size).toBeGreaterThan(5);
    for (const ref of refs) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, part) => (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
          doc,
        );
      expect(target, `${ref} resolves`).toBeDefined();
    }
  });

  it('lists exactly the routes the app serves', () => {
    const served = servedRoutes();
    const documented = documentedRoutes();
    expect(served).toContain('GET /docs');
    expect(served).toContain('GET /assets/{file}');
    expect([...new Set(documented)].sort()).toEqual([...new Set(served)].sort());
  });

  it('states the configured limits, generated from the request schemas', () => {
    const s = doc.components.schemas as Json;
    expect(s.ImageRequest.properties.timeout).toMatchObject({
      type: 'integer',
      minimum: 1000,
      maximum: 90_000,
      default: 30_000,
    });
    expect(s.PdfRequest.properties.timeout.maximum).toBe(90_000);
    expect(s.MonitorCreate.properties.capture.properties.timeout.maximum).toBe(90_000);
    expect(s.MonitorCreate.properties.retention.properties.keep).toMatchObject({ maximum: 55, default: 100 });
    // Generated, not retyped: every option of the contract is there with its enum and default.
    expect(s.ImageRequest.properties.format).toMatchObject({ enum: ['png', 'jpeg', 'jpg', 'webp'], default: 'png' });
    expect(s.PdfRequest.properties.format.enum).toEqual(['A4', 'Letter', 'Legal', 'Tabloid', 'A3', 'A5']);
    expect(s.ImageRequest.additionalProperties).toBe(false);
    expect(s.MonitorCreate.required).toEqual(['url', 'schedule']);
    const jobList = doc.paths['/api/jobs'].get.parameters as Json[];
    expect(jobList.map((p) => `${p.in}:${p.name}`)).toEqual(['query:status', 'query:limit', 'query:cursor']);
    expect(jobList.find((p) => p.name === 'limit')!.schema).toMatchObject({ maximum: 100, default: 20 });
  });

  it('describes every operation: summary, tags, responses, errors as the shared Error, security', () => {
    const tags = new Set((doc.tags as Json[]).map((t) => t.name as string));
    const ids = new Set<string>();
    for (const [route, op] of operations()) {
      expect(op.summary, route).toBeTruthy();
      expect(op.tags?.length, route).toBe(1);
      expect(tags.has(op.tags[0] as string), route).toBe(true);
      expect(ids.has(op.operationId as string), `${route}: unique operationId`).toBe(false);
      ids.add(op.operationId as string);
      const statuses = Object.keys(op.responses as Json);
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${route} has a success response`,
      ).toBe(true);
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        const r = op.responses[status] as Json;
        expect(r.content['application/json'].schema.allOf[0], `${route} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
        expect(
          r.content['application/json'].schema.allOf[1].properties.error.properties.code.enum.length,
        ).toBeGreaterThan(0);
      }
      if (route.includes(' /api/')) expect(statuses, `${route} names 401`).toContain('401');
      if (/\{id\}/.test(route)) expect(statuses, `${route} names 404`).toContain('404');
    }
    expect(doc.components.schemas.Error.required).toEqual(['error', 'requestId']);
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) as unknown,
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }) as unknown,
    });
    expect(doc.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    const anonymous = [{}, { bearer: [] }, { apiKey: [] }];
    expect(doc.paths['/api/pdf'].post.security).toEqual(anonymous);
    expect(doc.paths['/api/image'].post.security).toEqual(anonymous);
    expect(doc.paths['/api/status'].get.security).toEqual(anonymous);
    expect(doc.paths['/api/jobs'].get.security).toBeUndefined(); // the document's default: a key
    expect(doc.paths['/health'].get.security).toEqual([]);
    const render = doc.paths['/api/image'].post as Json;
    expect(Object.keys(render.requestBody.content)).toEqual(['application/json', 'text/html', 'multipart/form-data']);
    // The upload: files by path, the options as one JSON part or as fields.
    const upload = render.requestBody.content['multipart/form-data'].schema as Json;
    expect(upload.required).toEqual(['files']);
    expect(Object.keys(upload.properties)).toEqual(['files', 'options']);
    expect(render.requestBody.description).toContain('multipart/form-data');
    expect(Object.keys(render.responses)).toEqual(
      expect.arrayContaining([
        '200',
        '202',
        '400',
        '401',
        '403',
        '409',
        '413',
        '415',
        '422',
        '429',
        '500',
        '503',
        '504',
      ]),
    );
    expect(
      render.responses['429'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum,
    ).toEqual(['rate_limited', 'queue_full']);
    expect(render.responses['200'].content['image/webp'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(doc.paths['/api/pdf'].post.responses['200'].content['application/pdf'].schema).toEqual({
      type: 'string',
      format: 'binary',
    });
  });

  it("a render request built from each endpoint's schema and defaults succeeds", async () => {
    const expected: Record<string, string> = { '/api/pdf': 'application/pdf', '/api/image': 'image/png' };
    for (const [path, contentType] of Object.entries(expected)) {
      const op = doc.paths[path].post as Json;
      const schema = schemaAt(op.requestBody.content['application/json'].schema.$ref as string);
      const body = bodyFromDefaults(schema, { html: '<h1>From the schema</h1>' });
      expect(Object.keys(body).length).toBeGreaterThan(10);
      const res = await svc.post(path, body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      expect(res.headers.get('content-type')).toBe(contentType);
      expect(Object.keys(op.responses['200'].content)).toContain(contentType);
      const bytes = await bytesOf(res);
      if (contentType === 'application/pdf') {
        const pdf = await parsePdf(bytes);
        expect(pdf.pageCount).toBe(1);
        expect(pdf.text).toContain('From the schema');
      } else {
        expect(isPng(bytes)).toBe(true);
        expect(decodePng(bytes)).toMatchObject({ width: 1280, height: 800 });
      }
      // The raw-HTML shortcut the document lists beside JSON.
      const raw = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/html' },
        body: '<p>raw</p>',
      });
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toBe(contentType);
    }
  });

  it('an async job answers the documented Job shape', async () => {
    const res = await svc.call('POST', '/api/image', key, { html: '<p>job</p>', async: true });
    expect(res.status).toBe(202);
    const job = (await res.json()) as Json;
    const jobSchema = doc.components.schemas.Job as Json;
    expectShape(job, jobSchema);
    const done = await until('the job to succeed', async () => {
      const j = (await (await svc.call('GET', `/api/jobs/${job.id}`, key)).json()) as Json;
      return j.status === 'succeeded' && j;
    });
    expectShape(done, jobSchema);
    expectShape(done.result as Json, jobSchema.properties.result as Json);
  });

  it("a monitor built from the create schema's required fields is created (201)", async () => {
    const op = doc.paths['/api/monitors'].post as Json;
    const schema = schemaAt(op.requestBody.content['application/json'].schema.$ref as string);
    const body: Json = {};
    for (const name of schema.required as string[]) {
      const examples = schema.properties[name].examples as unknown[] | undefined;
      expect(examples?.length, `${name} has an example`).toBeGreaterThan(0);
      body[name] = examples![0];
    }
    body.url = `${svc.url}/docs`; // the example's host is not reachable from the test machine; a local page is
    const res = await svc.call('POST', '/api/monitors', key, body);
    if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
    expect(op.responses['201']).toBeDefined();
    const monitor = (await res.json()) as Json;
    expect(monitor.id).toMatch(/^mon_/);
    expect(res.headers.get('location')).toBe(`/api/monitors/${monitor.id}`);
    expect(monitor.schedule).toBe(body.schedule);
    expectShape(monitor, doc.components.schemas.Monitor as Json);
    expect((await svc.call('DELETE', `/api/monitors/${monitor.id}`, key)).status).toBe(204);
  });
});
