import { describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import { clock, emit, receiver, store, worker, workerSuite } from './testing/worker-suite.js';

// The worker's room for claimed rows is twice its concurrency. Rows buffered behind endpoints at
// their cap must never fill it while send slots are idle, or other endpoints' rows wait behind
// receivers that hang.
/** Waits up to ~300 ms of real time for `done`, in short steps; returns either way. */
async function settle(done: () => boolean): Promise<void> {
  for (let i = 0; i < 60 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe.each(storeKinds())('webhook worker room on $name', (kind) => {
  workerSuite(kind);

  it('keeps claiming for healthy endpoints while several hanging ones hold all they may', async () => {
    const ws = await seedWorkspace(store.db);
    for (let i = 0; i < 3; i++) {
      await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/hang${i}`, events: ['call.started'] });
    }
    await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/ok`, events: ['call.ended'] });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let open = 0;
    receiver.respond = (r, res) => {
      if (r.url === '/ok') return void res.writeHead(204).end();
      open++;
      void released.then(() => res.writeHead(204).end());
    };
    // Three hanging endpoints with backlogs due first, then three deliveries for a healthy one.
    for (let i = 0; i < 10; i++) await emit(ws, 'call.started');
    clock.set(clock.now() + 1);
    for (let i = 0; i < 3; i++) await emit(ws, 'call.ended');

    const w = worker({ concurrency: 8, perEndpointConcurrency: 2, pollIntervalMs: 1_000 });
    w.start();
    const ok = () => receiver.received.filter((r) => r.url === '/ok').length;
    // Polls come every second of the fake clock; attempts time out after 10 s of it.
    // Each poll gets real time to finish its queries before the next second of the fake clock
    // (a loaded machine can take far longer than a few milliseconds), so the bound is in polls.
    for (let polls = 0; ok() < 3 && polls < 8; polls++) {
      await settle(() => ok() >= 3);
      clock.advance(1_000);
    }
    expect(ok()).toBe(3);
    expect(open).toBe(6); // two per hanging endpoint, all still hanging
    release();
    await receiver.waitFor(33);
    await w.stop();
    const rows = await store.db.selectFrom('webhook_deliveries').select('status').execute();
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(33);
  });
});
