// Spans for what a request or a call does: route → service → store for the API, INVITE → admission
// → dispatch → each node → provider requests for a call. The code that does the work calls only
// these helpers; src/ops/tracing.ts starts the exporter (OTLP/HTTP) when OTEL_EXPORTER_OTLP_ENDPOINT
// is set and turns them on. Off, each helper is one boolean check, so hot paths (the store's point
// queries, a call's admission) pay nothing for tracing they do not use.
//
// A child span finds its parent through the active context (AsyncLocalStorage once tracing is on),
// so a store query made while a request's handler runs hangs under that request without either
// knowing of the other.
import {
  context,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

export { SpanKind };
export type { Attributes };

let enabled = false;

/** Turned on by src/ops/tracing.ts once a tracer provider and context manager are registered. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}

export function tracingEnabled(): boolean {
  return enabled;
}

function tracer() {
  return trace.getTracer('switchboard');
}

function failSpan(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Runs `fn` inside a new span, a child of the active one (or a root when `root` is set), ended when
 * `fn` returns or its promise settles; a throw or a rejection marks the span failed and passes on.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => T,
  options: { kind?: SpanKind; onlyUnderParent?: boolean } = {},
): T {
  if (!enabled) return fn();
  const parent = context.active();
  if (options.onlyUnderParent && !trace.getSpan(parent)) return fn();
  const span = tracer().startSpan(name, { attributes, kind: options.kind ?? SpanKind.INTERNAL }, parent);
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    failSpan(span, err);
    span.end();
    throw err;
  }
  if (isPromiseLike<unknown>(result)) {
    return Promise.resolve(result).then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        failSpan(span, err);
        span.end();
        throw err;
      },
    ) as T;
  }
  span.end();
  return result;
}

/**
 * A span that outlives the function that opened it: a call from its INVITE to its end, a request
 * from its first byte to its answer. Work run through `within` becomes its children.
 */
export interface OpenSpan {
  within<T>(fn: () => T): T;
  set(attributes: Attributes): void;
  /** Marks the span failed (it still needs `end`). */
  fail(reason: unknown): void;
  /** Ends the span; later calls do nothing. */
  end(): void;
  /** The span's context, for a span to be opened under this one later. */
  readonly context: Context | undefined;
}

const CLOSED: OpenSpan = {
  within: (fn) => fn(),
  set: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  context: undefined,
};

/** Opens a span under `parent` (default: the active context). A no-op span while tracing is off. */
export function openSpan(
  name: string,
  attributes: Attributes,
  options: { kind?: SpanKind; parent?: Context } = {},
): OpenSpan {
  if (!enabled) return CLOSED;
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { attributes, kind: options.kind ?? SpanKind.INTERNAL }, parent);
  const ctx = trace.setSpan(parent, span);
  let ended = false;
  return {
    within: (fn) => context.with(ctx, fn),
    set: (attrs) => span.setAttributes(attrs),
    fail: (reason) => failSpan(span, reason),
    end: () => {
      if (ended) return;
      ended = true;
      span.end();
    },
    context: ctx,
  };
}

/**
 * Records work that already happened (the store times its own queries) as a child of the active
 * span. Nothing is recorded without an active span: a background poller's queries are not traces.
 */
export function recordSpan(
  name: string,
  startedAtMs: number,
  durationMs: number,
  attributes: Attributes,
  error?: unknown,
): void {
  if (!enabled) return;
  const parent = context.active();
  if (!trace.getSpan(parent)) return;
  const span = tracer().startSpan(
    name,
    { attributes, kind: SpanKind.CLIENT, startTime: startedAtMs },
    parent,
  );
  if (error !== undefined) failSpan(span, error);
  span.end(startedAtMs + durationMs);
}

/** The active trace's id, for log lines; undefined outside a span or with tracing off. */
export function activeTraceId(): string | undefined {
  if (!enabled) return undefined;
  return trace.getSpan(context.active())?.spanContext().traceId;
}

/** Adds attributes to the active span (a step's refusal, a call's id once known). */
export function setActiveAttributes(attributes: Attributes): void {
  if (!enabled) return;
  trace.getSpan(context.active())?.setAttributes(attributes);
}
