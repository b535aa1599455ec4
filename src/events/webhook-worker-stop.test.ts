// The webhook worker's stop(): deliveries in flight sent and recorded first, claimed ones not yet
// started handed back, due at once for the next worker. Set-up in testing/worker-suite.ts.
import { describe, expect, it } from 'vitest';
import { toDbTime } from '../store/database.js';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { clock, delivery, emit, receiver, store, worker, workerSuite } from './testing/worker-suite.js';

describe.each(storeKinds())('webhook worker on $name', (kind) => {
  workerSuite(kind);

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
});
