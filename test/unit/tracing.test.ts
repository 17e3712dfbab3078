// The tracing settings at and over their edges, the seam with tracing off, and the rule that keeps "off"
// free: only src/tracing/start.ts names the SDK packages, and it loads them with import() in start().
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { projectRoot } from '../../src/project-root.js';
import { inSpan, linkFrom, recordSpan, spanUrl, startSpan, traceHeaders, tracingOn } from '../../src/tracing/spans.js';
import { parseExportHeaders } from '../../src/tracing/export-headers.js';
import { tracesUrl } from '../../src/tracing/start.js';

const tracing = (settings: Record<string, unknown>) =>
  loadConfig({ env: {}, overrides: { tracing: settings } }).tracing;

describe('tracing settings', () => {
  it('are off by default', () => {
    expect(tracing({})).toEqual({
      endpoint: '',
      serviceName: 'pagewatch',
      sampleRatio: 1,
      headers: '',
      exportDelayMs: 5000,
    });
  });

  it('take an http(s) endpoint and refuse anything else', () => {
    expect(tracing({ endpoint: 'http://collector:4318' }).endpoint).toBe('http://collector:4318');
    expect(tracing({ endpoint: 'https://otlp.example.com/' }).endpoint).toBe('https://otlp.example.com/');
    for (const bad of ['ftp://collector', 'collector:4318', 'http://'])
      expect(() => tracing({ endpoint: bad }), bad).toThrow(/tracing\.endpoint/);
  });

  it('take sampleRatio from 0 to 1 and exportDelayMs from 10 to 60000, not a step beyond', () => {
    expect(tracing({ sampleRatio: 0 }).sampleRatio).toBe(0);
    expect(tracing({ sampleRatio: 1 }).sampleRatio).toBe(1);
    expect(() => tracing({ sampleRatio: 1.01 })).toThrow(/tracing\.sampleRatio/);
    expect(() => tracing({ sampleRatio: -0.01 })).toThrow(/tracing\.sampleRatio/);
    expect(tracing({ exportDelayMs: 10 }).exportDelayMs).toBe(10);
    expect(tracing({ exportDelayMs: 60_000 }).exportDelayMs).toBe(60_000);
    expect(() => tracing({ exportDelayMs: 9 })).toThrow(/tracing\.exportDelayMs/);
    expect(() => tracing({ exportDelayMs: 60_001 })).toThrow(/tracing\.exportDelayMs/);
  });

  it('take headers as name=value pairs separated by commas, and refuse anything else', () => {
    const env = { PAGEWATCH_TRACING_HEADERS: 'x-api-key=k1, Authorization=Bearer a=b' };
    expect(parseExportHeaders(loadConfig({ env }).tracing.headers)).toEqual({
      'x-api-key': 'k1',
      authorization: 'Bearer a=b',
    });
    expect(parseExportHeaders('')).toEqual({});
    for (const bad of ['x-api-key', 'bad header=x', '=x', 'a=1,,b=2'])
      expect(() => tracing({ headers: bad }), bad).toThrow(/tracing\.headers/);
  });

  it('send traces to <endpoint>/v1/traces', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otlp.example.com/base')).toBe('https://otlp.example.com/base/v1/traces');
  });
});

describe('the seam with tracing off', () => {
  it('runs the work directly, passing its result and its failure through', async () => {
    expect(tracingOn()).toBe(false);
    let seen: unknown;
    await expect(
      inSpan('x', {}, (span) => {
        seen = span.isRecording();
        return Promise.resolve(42);
      }),
    ).resolves.toBe(42);
    expect(seen).toBe(false);
    await expect(inSpan('x', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(startSpan('x').isRecording()).toBe(false);
    expect(() => recordSpan('x', 0, 1)).not.toThrow();
    expect(traceHeaders()).toEqual({});
    expect(linkFrom({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })).toEqual([]);
  });

  it('keeps credentials, query and fragment out of url.full', () => {
    expect(spanUrl('https://user:pw@example.com:8443/a/b?token=x#frag')).toBe('https://example.com:8443/a/b');
    expect(spanUrl('not a url')).toBe('invalid');
  });
});

describe('the SDK is loaded only when tracing starts', () => {
  const SDK = /@opentelemetry\/(sdk-|exporter-|resources|core|context-async-hooks|semantic-conventions)/;
  const root = projectRoot();
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );

  it('only src/tracing/start.ts names the SDK, with type imports and import() only', () => {
    const naming = files(join(root, 'src')).filter((f) => SDK.test(readFileSync(f, 'utf8')));
    expect(naming.map((f) => relative(root, f))).toEqual(['src/tracing/start.ts']);
    const lines = readFileSync(join(root, 'src/tracing/start.ts'), 'utf8')
      .split('\n')
      .filter((l) => SDK.test(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(line, line).toMatch(/^\s*(import type .* from '@opentelemetry|import\('@opentelemetry)/);
  });
});
