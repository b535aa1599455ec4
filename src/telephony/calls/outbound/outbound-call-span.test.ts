// With tracing on, an outbound call is one client span from its dial to its end, carrying the
// call's id and outcome, and a failed call's span is marked failed.
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../../../modules/calls/dialer.js';
import { setTracingEnabled } from '../../../shared/tracing.js';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { ScriptedLeg } from '../../../../test/support/scripted-leg.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { SipDialer } from './sip-dialer.js';

describe('outbound call span', () => {
  const exporter = new InMemorySpanExporter();
  let t: TestApi;
  let w: CallWorld;
  let dialer: SipDialer;
  const legs: ScriptedLeg[] = [];

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    setTracingEnabled(true);
    const late: Dialer = {
      get nodeId() {
        return dialer.nodeId;
      },
      dial: (c) => dialer.dial(c),
      cancel: (id) => dialer.cancel(id),
    };
    t = await startTestApi(storeKinds()[0]!, { overrides: { dialer: late } });
    w = await callWorld(t);
    dialer = new SipDialer(t.deps, () => {
      const leg = new ScriptedLeg();
      legs.push(leg);
      return leg;
    });
  });
  afterAll(async () => {
    setTracingEnabled(false);
    trace.disable();
    context.disable();
    await t.close();
  });

  it('a dial that dies before any answer: one failed client span with the call id and outcome', async () => {
    const res = await t.call('POST', '/api/v1/calls', {
      body: { project_id: w.projectId, workflow_id: w.workflowId, from: w.number, to: '+14155550999' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.data as { data: { id: string } }).data.id;
    const call = dialer.find(id)!;
    await call.idle();
    legs.at(-1)!.events.transportError(new Error('timer B'));
    await call.idle();
    const span = exporter.getFinishedSpans().find((s) => s.name === 'sip INVITE');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      'switchboard.call_id': id,
      'switchboard.call_status': 'failed',
      'switchboard.hangup_reason': 'carrier_error',
    });
    expect(span?.status).toMatchObject({ code: 2, message: 'carrier_error' });
  });
});
