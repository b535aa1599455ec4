// The webhook worker when deliveries fail: the retry schedule and its jitter, dead after the eighth
// failure; deliveries of a paused endpoint failed unsent; an endpoint auto-paused after 7 days of
// failing everything (not when failures are sporadic), its owner told, by e-mail through a real
// SMTP server too. Set-up in testing/worker-suite.ts.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { toDbTime } from '../store/database.js';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { createOwnerNotifier } from './owner-notifier.js';
import {
  clock,
  delivery,
  emit,
  notices,
  receiver,
  store,
  worker,
  workerSuite,
} from './testing/worker-suite.js';

const DAY = 24 * 3_600_000;

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  workerSuite(kind);

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
