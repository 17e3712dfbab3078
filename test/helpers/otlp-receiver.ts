// An OpenTelemetry collector's trace endpoint on 127.0.0.1 for tests: it accepts OTLP/HTTP exports at
// /v1/traces, decodes their JSON (what @opentelemetry/exporter-trace-otlp-http sends), and keeps every
// span with its resource and the request's headers. Anything else (another path, protobuf) is refused and
// counted, so a test sees an exporter that sent what a collector would not take.
import { startChatReceiver } from './chat-receiver.js';

/** One span as received: ids in hex, attributes and resource as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's first span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  links: { traceId: string; spanId: string }[];
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, as tracing.endpoint takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Every accepted export's body as it came (to look for what must never be sent). */
  bodies: string[];
  /** The headers of every accepted export. */
  exports: Record<string, string | string[] | undefined>[];
  /** Requests refused: another path, or a body that is not OTLP JSON. */
  refused: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttribute[];
  status?: { code?: number; message?: string };
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  throw new Error(`an attribute value of no known type: ${JSON.stringify(v)}`);
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));
}

const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);

/** The spans of one export, checked for the shape OTLP says (hex ids of the right length). */
export function decodeExport(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as OtlpExport;
  if (!Array.isArray(parsed.resourceSpans)) throw new Error('no resourceSpans');
  return parsed.resourceSpans.flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return rs.scopeSpans.flatMap((ss) =>
      (ss.spans ?? []).map((s) => {
        if (!HEX(32).test(s.traceId) || !HEX(16).test(s.spanId)) throw new Error(`bad ids: ${s.traceId} ${s.spanId}`);
        if (s.parentSpanId && !HEX(16).test(s.parentSpanId)) throw new Error(`bad parent id: ${s.parentSpanId}`);
        return {
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          status: { code: s.status?.code ?? 0, ...(s.status?.message && { message: s.status.message }) },
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          resource,
        };
      }),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  // The chat receiver records each request whole; this one decides what a collector would take.
  const raw = await startChatReceiver();
  const receiver: OtlpReceiver = {
    url: raw.url,
    spans: [],
    bodies: [],
    exports: [],
    refused: [],
    close: () => raw.close(),
  };
  raw.answer = (res, hit) => {
    const type = hit.headers['content-type'] ?? '';
    if (hit.method !== 'POST' || hit.path !== '/v1/traces' || !type.startsWith('application/json')) {
      receiver.refused.push(`${hit.method} ${hit.path} ${type}`);
      res.writeHead(415).end();
      return;
    }
    try {
      const body = hit.body.toString('utf8');
      receiver.spans.push(...decodeExport(body));
      receiver.bodies.push(body);
      receiver.exports.push(hit.headers);
    } catch (err) {
      receiver.refused.push(`undecodable: ${(err as Error).message}`);
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  };
  return receiver;
}

/** The spans of one trace. */
export function traceOf(spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === traceId);
}

/** The span of `trace` named `name`; throws naming what the trace holds when there is none or several. */
export function only(trace: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = trace.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(`expected one "${name}" span, found ${found.length} in [${trace.map((s) => s.name).join(', ')}]`);
  return found[0]!;
}
