// The webhook worker sending: an event fanned out to the endpoints subscribed to it, signed and
// recorded with its attempt; an SSRF refusal recorded as a failed attempt; a response body the
// store cannot hold as text recorded instead of failing the batch. Set-up in testing/worker-suite.ts.
import { describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { AddressPolicy } from './address-policy.js';
import { createGuardedAgent } from './ssrf-guard.js';
import { clock, delivery, emit, receiver, store, worker, workerSuite } from './testing/worker-suite.js';
import { verifyWebhook } from './verify-webhook.js';

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  workerSuite(kind);

  it('fans an event out to the active endpoints of its project subscribed to its type', async () => {
    const ws = await seedWorkspace(store.db);
    const other = await seedWorkspace(store.db);
    const url = `${receiver.url}/hook`;
    const subscribed = await seedEndpoint(store.db, { ...ws, url, events: ['call.ended', 'call.started'] });
    const notSubscribed = await seedEndpoint(store.db, { ...ws, url, events: ['session.ended'] });
    const paused = await seedEndpoint(store.db, { ...ws, url, events: ['call.ended'], status: 'paused' });
    const otherProject = await seedEndpoint(store.db, { ...other, url, events: ['call.ended'] });
    const ev = await emit(ws, 'call.ended', { id: 'c1', duration_seconds: 3 });
    expect(ev).toMatchObject({ pending: 1, paused: 1 });
    expect(await delivery(notSubscribed.id)).toHaveLength(0);
    expect(await delivery(otherProject.id)).toHaveLength(0);
    const [p] = await delivery(paused.id);
    expect(p).toMatchObject({
      status: 'failed',
      attempt_count: 0,
      last_error: expect.stringMatching(/^endpoint paused/),
    });

    expect(await worker().runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.body).toBe(ev.body);
    const body = verifyWebhook(got.body, got.headers, subscribed.secret, { now: clock.now() });
    expect(body).toEqual({
      id: ev.id,
      type: 'call.ended',
      created_at: '2026-03-01T00:00:00Z',
      project_id: ws.projectId,
      data: { id: 'c1', duration_seconds: 3 },
    });
    const [d] = await delivery(subscribed.id);
    expect(d).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      lease_owner: null,
    });
    const attempts = await store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', d!.id)
      .execute();
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      response_status: 200,
      response_body: 'ok',
      error: null,
      attempt_number: 1,
    });
    expect(JSON.parse(attempts[0]!.request_headers)['X-Service-Delivery']).toBe(
      got.headers['x-service-delivery'],
    );
  });

  it('records an SSRF refusal as a failed attempt with a clear error', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, {
      ...ws,
      url: 'http://169.254.169.254/latest',
      events: ['call.ended'],
    });
    await emit(ws);
    await worker({ dispatcher: createGuardedAgent({ policy: new AddressPolicy() }) }).runOnce();
    const [d] = await delivery(ep.id);
    expect(d!.status).toBe('pending');
    expect(d!.last_error).toMatch(/^Refused to connect to 169\.254\.169\.254: linkLocal/);
    const [a] = await store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', d!.id)
      .execute();
    expect(a!.error).toBe(d!.last_error);
    expect(a!.response_status).toBeNull();
  });

  it('records a response holding NUL bytes (PostgreSQL text cannot) instead of failing the batch', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/nul`, events: ['call.ended'] });
    receiver.respond = (_r, res) => res.writeHead(200, { 'x-odd': 'a' }).end('ok\u0000done');
    await emit(ws);
    await emit(ws);
    expect(await worker().runOnce()).toBe(2);
    const rows = await delivery(ep.id);
    expect(rows.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    const attempts = await store.db.selectFrom('webhook_attempts').select('response_body').execute();
    expect(attempts.map((a) => a.response_body)).toEqual(['ok\uFFFDdone', 'ok\uFFFDdone']);
  });
});
