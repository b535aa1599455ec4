// GET /metrics: who may read it, what a call, a media stream, a webhook attempt and a request put
// in it, and that Prometheus's own checker (Debian's `promtool`) accepts the text.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endCall, markAnswered } from '../../src/modules/calls/call-lifecycle.js';
import type { Dialer } from '../../src/modules/calls/dialer.js';
import { emitTelemetry } from '../../src/shared/telemetry.js';
import { inTransaction } from '../../src/store/database.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow, registerNumber } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

const NODE = 'metrics-node:5060';

const promtool = spawnSync('promtool', ['--version']).status === 0;

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(storeKinds())('GET /metrics on $name', (kind) => {
  let t: TestApi;
  let projectId: string;
  let workflowId: string;
  beforeAll(async () => {
    const dialer: Dialer = { nodeId: NODE, dial: () => undefined };
    t = await startTestApi(kind, {
      metrics: true,
      config: { nodeId: NODE, webhookAllowedCidrs: ['127.0.0.0/8'] },
      overrides: { dialer },
    });
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId);
    await registerNumber(t, t.workspaceId, projectId, '+14155550100');
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it('counts live calls by direction and status, set-up time, ended calls, media and webhooks', async () => {
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      body: { project_id: projectId, url: 'http://127.0.0.1:9/hook', events: ['call.started', 'call.ended'] },
    });
    expect(endpoint.statusCode).toBe(201);
    const created = await t.call('POST', '/api/v1/calls', {
      body: { project_id: projectId, workflow_id: workflowId, from: '+14155550100', to: '+442071838750' },
    });
    expect(created.statusCode).toBe(201);
    const id = (created.data as { data: { id: string } }).data.id;

    let text = await scrape();
    expect(sample(text, 'switchboard_calls_active{direction="outbound",status="queued"}')).toBe(1);

    // Answered 2.5 s after POST /calls: one set-up observation in the 5 s bucket, not in the 2.5 s one.
    t.clock.advance(2_500);
    await inTransaction(t.store.db, (trx) => markAnswered(trx, t.deps, id));
    text = await scrape();
    expect(sample(text, 'switchboard_calls_active{direction="outbound",status="in_progress"}')).toBe(1);
    expect(sample(text, 'switchboard_call_setup_seconds_count{direction="outbound"}')).toBe(1);
    expect(sample(text, 'switchboard_call_setup_seconds_bucket{le="2.5",direction="outbound"}')).toBe(1);
    expect(sample(text, 'switchboard_call_setup_seconds_bucket{le="1",direction="outbound"}')).toBe(0);
    // call.started waits for the endpoint: one pending delivery, as old as the clock has moved since.
    expect(sample(text, 'switchboard_webhook_queue_depth')).toBe(1);
    t.clock.advance(4_000);

    await inTransaction(t.store.db, (trx) =>
      endCall(trx, t.deps, id, { status: 'completed', reason: 'callee_hangup' }),
    );
    emitTelemetry({ kind: 'rtp.closed', expected: 1000, lost: 3, jitterSeconds: 0.004 });
    emitTelemetry({ kind: 'webhook.attempt', ok: true, seconds: 0.02 });
    text = await scrape();
    expect(
      sample(text, 'switchboard_calls_active{direction="outbound",status="in_progress"}'),
    ).toBeUndefined();
    expect(sample(text, 'switchboard_calls_total{direction="outbound",status="completed"}')).toBe(1);
    expect(sample(text, 'switchboard_webhook_queue_depth')).toBe(2);
    expect(sample(text, 'switchboard_webhook_oldest_pending_seconds')).toBe(4);
    expect(sample(text, 'switchboard_rtp_packets_expected_total')).toBe(1000);
    expect(sample(text, 'switchboard_rtp_packets_lost_total')).toBe(3);
    expect(sample(text, 'switchboard_rtp_jitter_seconds_bucket{le="0.005"}')).toBe(1);
    expect(sample(text, 'switchboard_webhook_delivery_seconds_count{outcome="succeeded"}')).toBe(1);
    // Requests are labelled by their route's pattern, never by the id in the URL.
    expect(
      sample(
        text,
        'switchboard_http_request_duration_seconds_count{method="POST",route="/api/v1/calls",status_code="201"}',
      ),
    ).toBe(1);
    expect(text).not.toContain(id);
    // The default process and Node.js metrics, event-loop delay among them.
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('counts refused calls by reason, throttled SIP messages, full write queues, and shows the admission limits', async () => {
    emitTelemetry({ kind: 'call.refused', reason: 'max_calls_per_second' });
    emitTelemetry({ kind: 'call.refused', reason: 'max_calls_per_second' });
    emitTelemetry({ kind: 'call.refused', reason: 'max_concurrent_calls' });
    emitTelemetry({ kind: 'sip.throttled', transport: 'UDP' });
    emitTelemetry({ kind: 'sip.write_queue_full', transport: 'TLS' });
    emitTelemetry({
      kind: 'admission.limits',
      concurrentCalls: 480,
      callsPerSecond: 95,
      loopDelaySeconds: 0.012,
    });
    const text = await scrape();
    expect(sample(text, 'switchboard_calls_refused_total{reason="max_calls_per_second"}')).toBe(2);
    expect(sample(text, 'switchboard_calls_refused_total{reason="max_concurrent_calls"}')).toBe(1);
    expect(sample(text, 'switchboard_sip_messages_throttled_total{transport="UDP"}')).toBe(1);
    expect(sample(text, 'switchboard_sip_connections_write_queue_full_total{transport="TLS"}')).toBe(1);
    expect(sample(text, 'switchboard_admission_limit{limit="concurrent_calls"}')).toBe(480);
    expect(sample(text, 'switchboard_admission_limit{limit="calls_per_second"}')).toBe(95);
    expect(sample(text, 'switchboard_admission_loop_delay_seconds')).toBe(0.012);
  });

  it('counts calls hung up by the media timeout, by direction, and no other ending', async () => {
    const ended = (direction: string, reason: string) =>
      emitTelemetry({ kind: 'call.ended', direction, status: 'completed', reason });
    ended('inbound', 'media_timeout');
    ended('inbound', 'media_timeout');
    ended('outbound', 'media_timeout');
    ended('outbound', 'callee_hangup');
    const text = await scrape();
    expect(sample(text, 'switchboard_calls_media_timeout_total{direction="inbound"}')).toBe(2);
    expect(sample(text, 'switchboard_calls_media_timeout_total{direction="outbound"}')).toBe(1);
  });

  it.runIf(promtool || process.env.CI === 'true')('passes promtool check metrics', async () => {
    const text = await scrape();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.error).toBeUndefined();
    // Exit 1 is a parse error. Exit 3 is lint only, allowed for prom-client's own gauges that
    // end in _total (its default metrics, which dashboards know by these names); ours lint clean.
    const problems = (check.stdout + check.stderr).split('\n').filter(Boolean);
    const theirs =
      /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;
    expect(problems.filter((p) => !theirs.test(p))).toEqual([]);
    expect([0, 3]).toContain(check.status);
  });

  it('answers loopback clients; others need METRICS_TOKEN, in the error envelope', async () => {
    const remote = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.5' });
    expect(remote.statusCode).toBe(403);
    expect(remote.json()).toEqual({ message: expect.stringContaining('METRICS_TOKEN') });

    const guarded = await startTestApi(kind, { metrics: true, config: { metricsToken: 'scrape-secret' } });
    try {
      const get = (authorization?: string) =>
        guarded.app.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress: '203.0.113.5',
          headers: authorization ? { authorization } : {},
        });
      expect((await get()).statusCode).toBe(401);
      expect((await get('Bearer wrong')).statusCode).toBe(401);
      const ok = await get('Bearer scrape-secret');
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('switchboard_calls_active');
      // Loopback needs no token even when one is set.
      expect((await guarded.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
