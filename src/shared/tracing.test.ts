import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inSpan, openSpan, recordSpan, setTracingEnabled, tracingEnabled } from './tracing.js';

describe('tracing helpers', () => {
  const exporter = new InMemorySpanExporter();
  beforeEach(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    setTracingEnabled(true);
  });
  afterEach(() => {
    setTracingEnabled(false);
    exporter.reset();
    trace.disable();
    context.disable();
  });

  it('nests spans across awaits and marks a rejection failed', async () => {
    await expect(
      inSpan('outer', {}, async () => {
        await inSpan('inner', { n: 1 }, async () => new Promise((r) => setTimeout(r, 1)));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [inner, outer] = exporter.getFinishedSpans();
    expect(inner!.name).toBe('inner');
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
    expect(outer!.status).toMatchObject({ code: 2, message: 'boom' });
    expect(outer!.events[0]?.name).toBe('exception');
  });

  it('records finished work only under an active span', () => {
    recordSpan('db SELECT', Date.now() - 5, 5, {});
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const call = openSpan('sip INVITE', {});
    call.within(() => recordSpan('db SELECT', Date.now() - 5, 5, { 'db.system.name': 'sqlite' }));
    call.end();
    call.end(); // a second end does nothing
    const [query, invite] = exporter.getFinishedSpans();
    expect(query!.parentSpanContext?.spanId).toBe(invite!.spanContext().spanId);
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });

  it('does nothing while tracing is off', () => {
    setTracingEnabled(false);
    expect(tracingEnabled()).toBe(false);
    expect(inSpan('x', {}, () => 42)).toBe(42);
    openSpan('y', {}).end();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
