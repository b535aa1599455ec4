import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from 'undici';
import { FakeClock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { toDbTime, type Store } from '../store/database.js';
import { storeKinds } from '../../test/support/stores.js';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';
import { seedEndpoint, seedWorkspace, testBox } from '../../test/support/webhook-fixtures.js';
import { AddressPolicy } from './address-policy.js';
import { claimDue } from './delivery-claim.js';
import { LOG_RETENTION, pruneDeliveryLog } from './delivery-retention.js';
import type { EventType } from './event-types.js';
import { emitEvent } from './outbox.js';
import { createOwnerNotifier, type EndpointPausedNotice, type OwnerNotifier } from './owner-notifier.js';
import { createGuardedAgent } from './ssrf-guard.js';
import { verifyWebhook } from './verify-webhook.js';
import { DEFAULT_PER_ENDPOINT_CONCURRENCY, WebhookWorker } from './webhook-worker.js';
import { HELD_PER_CAP } from './worker-slots.js';

const DAY = 24 * 3_600_000;

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  let store: Store;
  let receiver: Receiver;
  let agent: Agent;
  let clock: FakeClock;
  let notices: EndpointPausedNotice[];
  const notifier: OwnerNotifier = {
    endpointPaused: async (n) => void notices.push(n),
    close: () => undefined,
  };

  beforeAll(async () => {
    store = await kind.open();
    receiver = await startReceiver();
    agent = createGuardedAgent({ policy: new AddressPolicy(['127.0.0.0/8']) });
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await store.close();
  });
  beforeEach(async () => {
    for (const t of [
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_events',
      'webhook_endpoints',
    ] as const) {
      await store.db.deleteFrom(t).execute();
    }
    clock = new FakeClock('2026-03-01T00:00:00Z');
    notices = [];
    receiver.reset();
    receiver.respond = (_r, res) => res.writeHead(200).end('ok');
  });

  const worker = (extra: Partial<ConstructorParameters<typeof WebhookWorker>[0]> = {}) =>
    new WebhookWorker({
      store,
      clock,
      logger: silentLogger(),
      dispatcher: agent,
      secrets: testBox,
      notifier,
      random: () => 0.5,
      ...extra,
    });

  const emit = (ws: { workspaceId: string; projectId: string }, type: EventType = 'call.ended', data = {}) =>
    store.db.transaction().execute((trx) => emitEvent(trx, { ...ws, type, data, now: clock.now() }));

  const delivery = (endpointId: string) =>
    store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at')
      .execute();

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

  it('retries on the documented schedule and marks the delivery dead after the eighth failure', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/down`, events: ['call.ended'] });
    receiver.respond = (_r, res) => res.writeHead(500).end('boom');
    const ev = await emit(ws);
    const w = worker();
    const waits = [30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const before = clock.now();
      expect(await w.runOnce()).toBe(1);
      const [d] = await delivery(ep.id);
      expect(d!.attempt_count).toBe(attempt);
      if (attempt < 8) {
        expect(d!.status).toBe('pending');
        expect(d!.next_attempt_at).toBe(toDbTime(before + waits[attempt - 1]!));
        // Not due a millisecond early.
        clock.set(before + waits[attempt - 1]! - 1);
        expect(await w.runOnce()).toBe(0);
        clock.set(before + waits[attempt - 1]!);
      } else {
        expect(d).toMatchObject({ status: 'dead', next_attempt_at: null, last_status_code: 500 });
      }
    }
    clock.set(clock.now() + 7 * DAY);
    expect(await w.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(8);
    // Same event id and identical body bytes on every attempt; a fresh delivery id each time.
    expect(new Set(receiver.received.map((r) => r.body))).toEqual(new Set([ev.body]));
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(8);
  });

  it('applies jitter within ±10 %', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/down`, events: ['call.ended'] });
    receiver.respond = (_r, res) => res.writeHead(503).end();
    await emit(ws);
    await emit(ws);
    const start = clock.now();
    await worker({ random: () => 0, concurrency: 1 }).runOnce();
    await worker({ random: () => 0.99999, concurrency: 1 }).runOnce();
    const next = (await delivery(ep.id))
      .map((d) => Date.parse(d.next_attempt_at!) - start)
      .sort((a, b) => a - b);
    expect(next).toEqual([27_000, 33_000]);
  });

  it('marks deliveries of a paused endpoint failed without sending them', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/x`, events: ['call.ended'] });
    await emit(ws);
    await store.db
      .updateTable('webhook_endpoints')
      .set({ status: 'paused' })
      .where('id', '=', ep.id)
      .execute();
    expect(await worker().runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const [d] = await delivery(ep.id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 0 });
    expect(d!.last_error).toMatch(/^endpoint paused/);
  });

  it('auto-pauses an endpoint after exactly 7 days of failing every delivery, and tells the owner', async () => {
    const ws = await seedWorkspace(store.db, 'boss@example.test');
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/down`, events: ['call.ended'] });
    receiver.respond = (_r, res) => res.writeHead(500).end();
    const w = worker();
    const t0 = clock.now();
    for (let day = 0; day < 7; day++) {
      clock.set(t0 + day * DAY);
      await emit(ws);
      while ((await w.runOnce()) > 0);
    }
    clock.set(t0 + 7 * DAY - 1);
    await emit(ws);
    while ((await w.runOnce()) > 0);
    const status = async () =>
      (
        await store.db
          .selectFrom('webhook_endpoints')
          .selectAll()
          .where('id', '=', ep.id)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await status()).toBe('active');
    expect(notices).toHaveLength(0);
    clock.set(t0 + 7 * DAY);
    await emit(ws);
    while ((await w.runOnce()) > 0);
    expect(await status()).toBe('paused');
    expect(notices).toEqual([
      expect.objectContaining({ to: 'boss@example.test', endpointId: ep.id, failingSince: toDbTime(t0) }),
    ]);
    // Nothing is lost while paused: waiting retries and new events show as failed, not sent.
    const sent = receiver.received.length;
    await emit(ws);
    clock.set(t0 + 9 * DAY);
    while ((await w.runOnce()) > 0);
    expect(receiver.received.length).toBe(sent);
    const rows = await delivery(ep.id);
    expect(rows.filter((d) => d.status === 'pending')).toHaveLength(0);
    expect(rows.filter((d) => d.status === 'failed').length).toBeGreaterThan(0);
  });

  it('does not auto-pause when failures are sporadic (one success resets the streak)', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/flaky`, events: ['call.ended'] });
    let up = false;
    receiver.respond = (_r, res) => res.writeHead(up ? 200 : 500).end();
    const w = worker();
    const t0 = clock.now();
    for (let hour = 0; hour <= 12 * 24; hour += 12) {
      clock.set(t0 + hour * 3_600_000);
      up = hour % (5 * 24) === 0 && hour > 0; // one success on day 5 and day 10
      await emit(ws);
      while ((await w.runOnce()) > 0);
    }
    const row = await store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', ep.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
    expect(notices).toHaveLength(0);
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

  it('leases claims: concurrent claimers get disjoint rows; an expired lease is claimed again', async () => {
    const ws = await seedWorkspace(store.db);
    await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/x`, events: ['call.ended'] });
    for (let i = 0; i < 20; i++) await emit(ws);
    const now = clock.now();
    const claims = await Promise.all(
      ['a', 'b', 'c', 'd'].map((owner) =>
        claimDue(store.db, store.dialect, { owner, now, leaseMs: 60_000, limit: 8 }),
      ),
    );
    const ids = claims.flat().map((c) => c.id);
    expect(ids.length).toBe(20);
    expect(new Set(ids).size).toBe(20);
    expect(
      await claimDue(store.db, store.dialect, { owner: 'e', now: now + 59_999, leaseMs: 60_000, limit: 50 }),
    ).toHaveLength(0);
    const again = await claimDue(store.db, store.dialect, {
      owner: 'e',
      now: now + 60_000,
      leaseMs: 60_000,
      limit: 50,
    });
    expect(again).toHaveLength(20);
  });

  it('stop() waits for deliveries in flight to be sent and recorded', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/slow`, events: ['call.ended'] });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    receiver.respond = (_r, res) => void released.then(() => res.writeHead(204).end());
    await emit(ws);
    const w = worker();
    w.start();
    await receiver.waitFor(1);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    const [d] = await delivery(ep.id);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  });

  it('stop() hands back claimed deliveries it had not started, due at once for the next worker', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/slow`, events: ['call.ended'] });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    receiver.respond = (_r, res) => void released.then(() => res.writeHead(204).end());
    for (let i = 0; i < 3; i++) await emit(ws);
    const w = worker({ concurrency: 1 });
    w.start();
    await receiver.waitFor(1);
    const stopping = w.stop();
    release();
    await stopping;
    const rows = await delivery(ep.id);
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(1);
    const waiting = rows.filter((d) => d.status === 'pending');
    expect(waiting).toHaveLength(2);
    expect(waiting.every((d) => d.lease_owner === null && d.next_attempt_at! <= toDbTime(clock.now()))).toBe(
      true,
    );
    expect(await worker().runOnce()).toBe(2);
  });

  it('caps attempts in flight per endpoint, so a hanging receiver does not hold up the others', async () => {
    const ws = await seedWorkspace(store.db);
    const slow = await seedEndpoint(store.db, {
      ...ws,
      url: `${receiver.url}/slow`,
      events: ['call.started'],
    });
    await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/fast`, events: ['call.ended'] });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let open = 0;
    let maxOpen = 0;
    receiver.respond = (r, res) => {
      if (r.url !== '/slow') return void res.writeHead(204).end();
      maxOpen = Math.max(maxOpen, ++open);
      void released.then(() => {
        open--;
        res.writeHead(204).end();
      });
    };
    // The hanging endpoint's backlog is due first, ahead of everything for the healthy one.
    for (let i = 0; i < 80; i++) await emit(ws, 'call.started');
    clock.set(clock.now() + 1);
    for (let i = 0; i < 5; i++) await emit(ws, 'call.ended');
    const w = worker({ concurrency: 8, perEndpointConcurrency: 3, pollIntervalMs: 1_000 });
    w.start();
    const fast = () => receiver.received.filter((r) => r.url === '/fast').length;
    // At the latest the next poll (which skips endpoints at their cap) finds the healthy endpoint.
    while (fast() < 5) {
      await new Promise((r) => setTimeout(r, 5));
      clock.advance(1_000);
    }
    expect(open).toBe(3);
    expect(maxOpen).toBe(3);
    // Behind its 3 hanging attempts the worker holds two more batches of the hanging endpoint, no
    // more: the rest of its backlog stays free for other workers.
    const held = await store.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', slow.id)
      .where('lease_owner', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(held.n)).toBe(HELD_PER_CAP * 3);
    release();
    await receiver.waitFor(85);
    await w.stop();
    expect(maxOpen).toBe(3);
    const rows = await store.db.selectFrom('webhook_deliveries').select('status').execute();
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(85);
  });

  it('claims at most the allowed number of rows per endpoint and skips endpoints at their cap', async () => {
    const ws = await seedWorkspace(store.db);
    const a = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/a`, events: ['call.started'] });
    const b = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/b`, events: ['call.ended'] });
    for (let i = 0; i < 6; i++) await emit(ws, 'call.started');
    clock.set(clock.now() + 1);
    for (let i = 0; i < 6; i++) await emit(ws, 'call.ended');
    const claim = (owner: string, remaining: Map<string, number>) =>
      claimDue(store.db, store.dialect, {
        owner,
        now: clock.now(),
        leaseMs: 60_000,
        limit: 10,
        endpointLimits: { perEndpoint: 4, remaining },
      });
    const first = await claim('w1', new Map([[b.id, 1]]));
    const count = (rows: Array<{ endpointId: string }>, id: string) =>
      rows.filter((r) => r.endpointId === id).length;
    expect(count(first, a.id)).toBeLessThanOrEqual(4);
    expect(count(first, b.id)).toBeLessThanOrEqual(1);
    const second = await claim('w1', new Map([[a.id, 0]]));
    expect(count(second, a.id)).toBe(0);
    expect(count(second, b.id)).toBeGreaterThan(0);
    expect(DEFAULT_PER_ENDPOINT_CONCURRENCY).toBe(16);
  });

  it('prunes the delivery log on the documented retention, on the clock', async () => {
    const ws = await seedWorkspace(store.db);
    const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/mixed`, events: ['call.ended'] });
    const t0 = clock.now();
    receiver.respond = (r, res) => res.writeHead(JSON.parse(r.body).data.ok ? 204 : 500).end();
    const w = worker({ pruneIntervalMs: 3_600_000 });
    const okEvent = await emit(ws, 'call.ended', { ok: true });
    const failing = await emit(ws, 'call.ended', { ok: false });
    expect(await w.runOnce()).toBe(2);
    // The failing one runs out of attempts: dead, 8 attempts logged.
    for (let i = 0; i < 7; i++) {
      clock.set(clock.now() + 13 * 3_600_000);
      await w.runOnce();
    }
    const deadAt = clock.now();
    const byEvent = async () => {
      const rows = await store.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'status'])
        .where('endpoint_id', '=', ep.id)
        .execute();
      return new Map(rows.map((r) => [r.event_id, r.status]));
    };
    expect(await byEvent()).toEqual(
      new Map([
        [okEvent.id, 'succeeded'],
        [failing.id, 'dead'],
      ]),
    );
    const attempts = () =>
      store.db
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    expect(await attempts()).toBe(9);
    const events = () =>
      store.db
        .selectFrom('webhook_events')
        .select('id')
        .execute()
        .then((r) => r.map((e) => e.id).sort());

    // Kept up to the last millisecond of the retention, gone after it.
    clock.set(t0 + LOG_RETENTION.succeededMs - 1);
    expect(await pruneDeliveryLog(store.db, clock.now())).toEqual({ deliveries: 0, events: 0 });
    clock.set(t0 + LOG_RETENTION.succeededMs);
    expect(await pruneDeliveryLog(store.db, clock.now())).toEqual({ deliveries: 1, events: 1 });
    expect(await byEvent()).toEqual(new Map([[failing.id, 'dead']]));
    expect(await attempts()).toBe(8);
    expect(await events()).toEqual([failing.id]);

    // Dead deliveries stay redeliverable for 30 days after they died; the worker prunes hourly.
    const pending = await emit(ws, 'call.ended', { ok: false }); // pending rows are never pruned
    clock.set(deadAt + LOG_RETENTION.finishedMs - 3_600_000);
    const sent = receiver.count;
    w.start();
    await receiver.waitFor(sent + 1);
    await clock.advanceAsync(3_600_000 - 1);
    await new Promise((r) => setTimeout(r, 20));
    expect((await byEvent()).get(failing.id)).toBe('dead');
    await clock.advanceAsync(3_600_000);
    while ((await byEvent()).has(failing.id)) await new Promise((r) => setTimeout(r, 5));
    await w.stop();
    expect(await attempts()).toBeGreaterThan(0); // the new event's attempt is still logged
    expect(await events()).toEqual([pending.id]);
  });

  it('never sends a row it held past half its lease: another worker may have claimed it since', async () => {
    const ws = await seedWorkspace(store.db);
    await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/x`, events: ['call.ended'] });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let first = true;
    receiver.respond = (_r, res) => {
      if (!first) return void res.writeHead(204).end();
      first = false;
      void released.then(() => res.writeHead(204).end());
    };
    const one = await emit(ws);
    const two = await emit(ws);
    const a = worker({ concurrency: 1, workerId: 'a' });
    a.start(); // claims both: sends one (it hangs), holds the other behind it
    await receiver.waitFor(1);
    clock.set(clock.now() + 60_000); // both leases run out; worker b takes both over
    expect(await worker({ workerId: 'b' }).runOnce()).toBe(2);
    release();
    // a finishes its hanging attempt while still running, then deals with the row it held.
    const attempts = async () =>
      Number(
        (
          await store.db
            .selectFrom('webhook_attempts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    while (a.inFlightCount > 0 || (await attempts()) < 3) await new Promise((r) => setTimeout(r, 5));
    await a.stop();
    const ids = receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
    expect(ids.filter((id) => id === one.id)).toHaveLength(2); // a's hanging attempt, then b's
    expect(ids.filter((id) => id === two.id)).toHaveLength(1); // b's only: a handed it back
    const rows = await store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempt_count'])
      .execute();
    expect(rows.every((d) => d.status === 'succeeded')).toBe(true);
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

  it('e-mails the workspace owner through a real SMTP server when it auto-pauses an endpoint', async () => {
    const mails: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const mailer = createOwnerNotifier({ smtpUrl: `smtp://127.0.0.1:${port}`, logger: silentLogger() });
    try {
      const ws = await seedWorkspace(store.db, 'ops@example.test');
      const ep = await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/down`, events: ['call.ended'] });
      receiver.respond = (_r, res) => res.writeHead(502).end();
      // Failing since exactly seven days ago: the next failed attempt pauses it.
      await store.db
        .updateTable('webhook_endpoints')
        .set({ failing_since: toDbTime(clock.now() - 7 * DAY) })
        .where('id', '=', ep.id)
        .execute();
      await emit(ws);
      await worker({ notifier: mailer }).runOnce();
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatch(/^To: ops@example\.test/m);
      expect(mails[0]).toContain(ep.id);
    } finally {
      mailer.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
