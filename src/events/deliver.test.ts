import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../shared/clock.js';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';
import { AddressPolicy } from './address-policy.js';
import { sendAttempt, type AttemptRequest } from './deliver.js';
import { createGuardedAgent } from './ssrf-guard.js';
import { verifyWebhook } from './verify-webhook.js';
import type { Agent } from 'undici';

const body =
  '{"id":"e1","type":"call.started","created_at":"2026-01-01T00:00:00Z","project_id":"p1","data":{}}';

describe('sendAttempt', () => {
  let receiver: Receiver;
  let agent: Agent;
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    receiver = await startReceiver();
    agent = createGuardedAgent({ policy: new AddressPolicy(['127.0.0.0/8']) });
  });
  afterEach(() => {
    receiver.respond = (_req, res) => res.writeHead(204).end();
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
  });

  const req = (path = '/hook', attemptId = '0193f000-0000-7000-8000-000000000001'): AttemptRequest => ({
    url: `${receiver.url}${path}`,
    eventType: 'call.started',
    body,
    secret: 'whsec_test',
    attemptId,
  });

  it('POSTs exactly the documented headers and a verifiable signature', async () => {
    const n = receiver.received.length;
    const out = await sendAttempt(req(), { dispatcher: agent, clock });
    expect(out.ok).toBe(true);
    expect(out.status).toBe(204);
    const got = receiver.received[n]!;
    expect(got.method).toBe('POST');
    expect(got.body).toBe(body);
    const { host: _h, 'content-length': _l, connection: _c, ...rest } = got.headers;
    expect(rest).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'x-service-event': 'call.started',
      'x-service-delivery': '0193f000-0000-7000-8000-000000000001',
      'x-service-timestamp': String(clock.now() / 1000),
      'x-service-signature': out.requestHeaders['X-Service-Signature'],
    });
    expect(verifyWebhook(got.body, got.headers, 'whsec_test', { now: clock.now() }).id).toBe('e1');
  });

  it('records a redirect as a failure and does not follow it', async () => {
    receiver.respond = (r, res) =>
      r.url === '/hook'
        ? res.writeHead(302, { location: `${receiver.url}/elsewhere` }).end()
        : res.writeHead(200).end();
    const n = receiver.received.length;
    const out = await sendAttempt(req(), { dispatcher: agent, clock });
    expect(out.ok).toBe(false);
    expect(out.status).toBe(302);
    expect(out.error).toBe(`redirect (302 to ${receiver.url}/elsewhere) not followed`);
    expect(receiver.received.slice(n).map((r) => r.url)).toEqual(['/hook']);
  });

  it('treats 4xx and 5xx as failures and captures the response', async () => {
    receiver.respond = (_r, res) => res.writeHead(503, { 'x-why': 'maintenance' }).end('down for a bit');
    const out = await sendAttempt(req(), { dispatcher: agent, clock });
    expect(out).toMatchObject({
      ok: false,
      status: 503,
      responseBody: 'down for a bit',
      error: 'endpoint answered 503',
    });
    expect(out.responseHeaders!['x-why']).toBe('maintenance');
  });

  it('caps the captured response body at 16 KiB', async () => {
    receiver.respond = (_r, res) => res.writeHead(200).end('x'.repeat(100_000));
    const out = await sendAttempt(req(), { dispatcher: agent, clock });
    expect(out.ok).toBe(true);
    expect(out.responseBody!.length).toBe(16 * 1024);
  });

  it('fails an attempt with no answer after 10 s on the clock', async () => {
    const clock2 = new FakeClock('2026-01-01T00:00:00Z');
    receiver.respond = () => undefined; // never answers
    const n = receiver.received.length;
    const pending = sendAttempt(req(), { dispatcher: agent, clock: clock2 });
    await receiver.waitFor(n + 1);
    clock2.advance(9_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock2.advance(1);
    const out = await pending;
    expect(out.ok).toBe(false);
    expect(out.error).toBe('timeout: no complete response within 10 s');
    expect(out.durationMs).toBe(10_000);
  });

  it('reports connection failures and SSRF refusals as failed attempts', async () => {
    const strict = createGuardedAgent({ policy: new AddressPolicy() });
    const refused = await sendAttempt(req(), { dispatcher: strict, clock });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/^Refused to connect to 127\.0\.0\.1: loopback addresses/);
    await strict.close();
    const closed = await sendAttempt({ ...req(), url: 'http://127.0.0.1:1/' }, { dispatcher: agent, clock });
    expect(closed.ok).toBe(false);
    expect(closed.error).toMatch(/ECONNREFUSED/);
  });
});
