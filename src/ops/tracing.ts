// Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: a tracer provider whose
// spans are batched and sent over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, the AsyncLocalStorage
// context manager that lets a span find its parent across awaits, and the W3C `traceparent`
// propagator so an API request carries on a trace its caller began. The spans themselves are
// opened by src/shared/tracing.ts's helpers, which stay no-ops until this turns them on.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { setTracingEnabled } from '../shared/tracing.js';

export interface TracingOptions {
  /** The OTLP/HTTP base address, as OTEL_EXPORTER_OTLP_ENDPOINT gives it (`/v1/traces` is added). */
  endpoint: string;
  nodeId: string;
  role: string;
  /** How long spans wait to be sent together; shorter in tests. */
  batchDelayMs?: number;
}

export interface Tracing {
  /** Sends the spans still waiting (a graceful shutdown calls it before the process exits). */
  flush(): Promise<void>;
  /** Flushes, then stops the exporter and turns the helpers off. */
  shutdown(): Promise<void>;
}

/** The OTLP traces address for a base endpoint, as the OpenTelemetry specification builds it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

export function startTracing(options: TracingOptions): Tracing {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'switchboard',
      'service.instance.id': options.nodeId,
      'switchboard.role': options.role,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: tracesUrl(options.endpoint) }),
        scheduledDelayMillis: options.batchDelayMs ?? 2_000,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracingEnabled(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
