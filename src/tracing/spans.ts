// The one seam the service traces through (every render, job, monitor capture and webhook delivery).
// With tracing off (tracing.endpoint empty, the default) each helper runs its work directly: no span,
// no context, nothing but this module and the OpenTelemetry API's types. start.ts loads the SDK only
// when an endpoint is set, and hands this module its tracer and propagator.
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Span,
  type TextMapPropagator,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import { AppError } from '../errors.js';

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/** What start.ts hands over once the SDK runs: spans are made by `tracer`, headers read and written by `propagator`. */
export interface ActiveTracing {
  tracer: Tracer;
  propagator: TextMapPropagator;
}

let active: ActiveTracing | undefined;

/** Called by start.ts: with a tracing when it starts, with undefined once it has stopped. */
export function useTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}

/** Whether spans are being made (a test and the bench look). */
export function tracingOn(): boolean {
  return active !== undefined;
}

/** What the work gets when nothing is traced: a span that records nothing. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Headers a trace context is read from or written to (an incoming request's, an outgoing webhook's). */
export type Carrier = Record<string, string | string[] | undefined>;

/**
 * `fn` inside a span, a child of the span active where it is called. The span ends when `fn` settles; a
 * failure marks it ERROR with the contract's error code (never the message: it may quote a page or a URL).
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!active) return fn(NO_SPAN);
  return active.tracer.startActiveSpan(name, { attributes }, (span) => endedAfter(span, fn));
}

export interface RootSpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /** Headers whose valid traceparent (and tracestate) the trace continues; without one a new trace starts. */
  continues?: Carrier;
  /** Traces this one follows from without being their child. */
  links?: Link[];
}

/** `fn` inside the first span of a trace of its own, or of the one `continues` carries. */
export function inRootSpan<T>(name: string, options: RootSpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!active) return fn(NO_SPAN);
  // A malformed or missing traceparent extracts to no span at all: the trace starts here.
  const parent = options.continues
    ? active.propagator.extract(ROOT_CONTEXT, options.continues, defaultTextMapGetter)
    : ROOT_CONTEXT;
  const spanOptions = { kind: options.kind, attributes: options.attributes, links: options.links };
  return active.tracer.startActiveSpan(name, spanOptions, parent, (span) => endedAfter(span, fn));
}

/**
 * A span started now and ended by the caller, not made the active one: for a stretch whose end is
 * somewhere else (a render's wait for its slot), so the work after it is not counted as its children.
 */
export function startSpan(name: string, attributes: Attributes = {}): Span {
  if (!active) return NO_SPAN;
  return active.tracer.startSpan(name, { attributes });
}

/** A span of a stretch already over, from times recorded elsewhere (a job's time in the queue). */
export function recordSpan(name: string, start: TimeInput, end: TimeInput, attributes: Attributes = {}): void {
  if (!active) return;
  active.tracer.startSpan(name, { startTime: start, attributes }).end(end);
}

/** The active span's traceparent (and tracestate) as headers for an outgoing request; none when off. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  active?.propagator.inject(context.active(), headers, defaultTextMapSetter);
  return headers;
}

/** A link to the trace `carrier` names, for a trace that follows from it; none when off or not valid. */
export function linkFrom(carrier: Carrier): Link[] {
  if (!active) return [];
  const linked = trace.getSpanContext(active.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter));
  return linked ? [{ context: linked }] : [];
}

/** Adds to the active span what only the code under it knows (a capture job's monitor), and may rename it. */
export function describeActiveSpan(attributes: Attributes, name?: string): void {
  if (!active) return;
  const span = trace.getActiveSpan();
  span?.setAttributes(attributes);
  if (name) span?.updateName(name);
}

/** A URL as a span may carry it (url.full): no credentials, query or fragment, which may hold secrets. */
export function spanUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'invalid';
  }
}

/** Marks the active span failed with `code` (work that reports failure by its result, not by throwing). */
export function markActiveFailed(code: string): void {
  const span = active && trace.getActiveSpan();
  if (!span) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  span.setAttribute('error.type', code);
}

/** Marks a span failed with the error's contract code; a failure that is no AppError says only its kind. */
export function markFailed(span: Span, err: unknown): void {
  const code = err instanceof AppError ? err.code : err instanceof Error ? err.name : 'unknown';
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  span.setAttribute('error.type', code);
}

async function endedAfter<T>(span: Span, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await fn(span);
  } catch (err) {
    markFailed(span, err);
    throw err;
  } finally {
    span.end();
  }
}
