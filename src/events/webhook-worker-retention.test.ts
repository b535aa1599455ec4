// The webhook worker's delivery log retention: succeeded and dead deliveries pruned on the
// documented schedule, to the millisecond, by the worker hourly on its clock; pending rows never.
// Set-up in testing/worker-suite.ts.
import { describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { LOG_RETENTION, pruneDeliveryLog } from './delivery-retention.js';
import { clock, emit, receiver, store, worker, workerSuite } from './testing/worker-suite.js';

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  workerSuite(kind);

  // Many store round trips on PostgreSQL: a loaded machine needs more than the default 30 s.
  it('prunes the delivery log on the documented retention, on the clock', { timeout: 120_000 }, async () => {
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
    // The next run is scheduled an hour after the previous one finishes, in real time; on a loaded
    // machine that can be after the clock moved, so keep the clock moving until the run happens.
    while ((await byEvent()).has(failing.id)) {
      await new Promise((r) => setTimeout(r, 5));
      await clock.advanceAsync(60_000);
    }
    await w.stop();
    expect(await attempts()).toBeGreaterThan(0); // the new event's attempt is still logged
    expect(await events()).toEqual([pending.id]);
  });
});
