// The webhook worker's claims: leases that keep concurrent claimers apart and expire; per-endpoint
// caps on attempts in flight and on rows claimed, so a hanging receiver holds up no other endpoint;
// a row held past half its lease never sent. Set-up in testing/worker-suite.ts.
import { describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { claimDue } from './delivery-claim.repo.js';
import { clock, emit, receiver, store, worker, workerSuite } from './testing/worker-suite.js';
import { DEFAULT_PER_ENDPOINT_CONCURRENCY } from './webhook-worker.js';
import { HELD_PER_CAP } from './worker-slots.js';

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  workerSuite(kind);

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
});
