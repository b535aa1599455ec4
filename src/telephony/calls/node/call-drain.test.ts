import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callEvents, callRow, callWorld, invite, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { CallDrain, DRAIN_LIMIT_MS, HANG_UP_LIMIT_MS } from './call-drain.js';
import { CallRecordsService } from '../../../modules/calls/call-records.service.js';
import { admitInbound } from '../../../modules/calls/inbound-admission.js';

/** Lets promise chains settled by a clock advance run on. */
const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
};

describe.each(storeKinds())('call drain on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let progress: CallRecordsService;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t);
    progress = new CallRecordsService(t.deps);
  });
  afterAll(() => t.close());

  const connect = async () => {
    const a = await admitInbound(t.deps, invite(w));
    if (a.kind !== 'accept') throw new Error(a.why);
    await progress.answered(a.call.id);
    return a.call.id;
  };

  it('refuses new calls with 503, lets a call that ends in time end normally', async () => {
    const id = await connect();
    const drain = new CallDrain(t.deps);
    let release!: () => void;
    const idle = new Promise<void>((r) => (release = r));
    let hungUp = 0;
    const done = drain.drain({ idle: () => idle, hangUpAll: async () => void hungUp++ });
    expect(await admitInbound({ ...t.deps, draining: drain.draining }, invite(w))).toMatchObject({
      status: 503,
    });
    t.clock.advance(DRAIN_LIMIT_MS - 1);
    await progress.ended(id, 'remote');
    release();
    expect(await done).toEqual({ hungUp: false, gaveUp: false, swept: 0 });
    expect(hungUp).toBe(0);
    expect(await callRow(t, id)).toMatchObject({ status: 'completed', hangup_reason: 'caller_hangup' });
  });

  it('hangs up what is still up at the limit with shutdown, and sweeps what the hang-up missed', async () => {
    const first = await connect();
    const second = await connect();
    const drain = new CallDrain(t.deps);
    const done = drain.drain({
      idle: () => new Promise<void>(() => undefined),
      hangUpAll: async () => {
        await progress.ended(first, 'shutdown');
      },
    });
    await Promise.resolve();
    t.clock.advance(DRAIN_LIMIT_MS);
    expect(await done).toEqual({ hungUp: true, gaveUp: false, swept: 1 });
    expect(await callRow(t, first)).toMatchObject({ status: 'completed', hangup_reason: 'shutdown' });
    expect(await callRow(t, second)).toMatchObject({ status: 'completed', hangup_reason: 'shutdown' });
  });

  it('a hang-up that never finishes (a teardown stuck behind a recogniser backlog) is given up at its own limit and the sweep ends the calls', async () => {
    const stuck = await connect();
    const drain = new CallDrain(t.deps);
    let hangUpStarted = false;
    let settled = false;
    const done = drain
      .drain({
        idle: () => new Promise<void>(() => undefined),
        hangUpAll: () => {
          hangUpStarted = true;
          return new Promise<void>(() => undefined);
        },
      })
      .finally(() => (settled = true));
    await flush();
    t.clock.advance(DRAIN_LIMIT_MS);
    await flush();
    expect(hangUpStarted).toBe(true);
    t.clock.advance(HANG_UP_LIMIT_MS - 1);
    await flush();
    expect(settled).toBe(false);
    t.clock.advance(1);
    expect(await done).toEqual({ hungUp: true, gaveUp: true, swept: 1 });
    expect(await callRow(t, stuck)).toMatchObject({ status: 'completed', hangup_reason: 'shutdown' });
  });

  it('a hang-up that fails still ends in the sweep', async () => {
    const id = await connect();
    const drain = new CallDrain(t.deps);
    const done = drain.drain({
      idle: () => new Promise<void>(() => undefined),
      hangUpAll: () => Promise.reject(new Error('BYE could not be sent')),
    });
    await flush();
    t.clock.advance(DRAIN_LIMIT_MS);
    expect(await done).toEqual({ hungUp: true, gaveUp: false, swept: 1 });
    expect(await callRow(t, id)).toMatchObject({ status: 'completed', hangup_reason: 'shutdown' });
  });

  it("sweeps only this node's calls: another node's call on the same store stays up", async () => {
    const mine = await connect();
    const otherNode = { ...t.deps, config: { ...t.deps.config, nodeId: 'sip-b.example:5060' } };
    const a = await admitInbound(otherNode, invite(w));
    if (a.kind !== 'accept') throw new Error(a.why);
    await new CallRecordsService(otherNode).answered(a.call.id);
    const drain = new CallDrain(t.deps);
    const done = drain.drain({ idle: async () => undefined, hangUpAll: async () => undefined });
    expect(await done).toEqual({ hungUp: false, gaveUp: false, swept: 1 });
    expect(await callRow(t, mine)).toMatchObject({ status: 'completed', hangup_reason: 'shutdown' });
    expect(await callRow(t, a.call.id)).toMatchObject({ status: 'in_progress', hangup_reason: null });
    expect((await callEvents(t, a.call.id)).map((e) => e.type)).toEqual(['call.started']);
    await progress.ended(a.call.id, 'remote');
  });
});
