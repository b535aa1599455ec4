// Overload control as the node runs it: the TelephonyNode hands its admission limits to the SIP
// stack, so an INVITE over them is answered 503 + Retry-After without a call row, while the call
// admitted before it is answered as usual (FakeClock, the real store, the SIP wire played by the test).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { carrierInvite, carrierSdp, wiredNode, type WiredNode } from '../../../../test/support/wired-node.js';
import { observeTelemetry, type TelemetryEvent } from '../../../shared/telemetry.js';
import { getHeader } from '../../sip/message/access.js';
import type { Source } from '../../sip/transport/routing.js';

async function settle(until: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await until())) await new Promise<void>((r) => setImmediate(r));
}

describe.each(storeKinds())('overload control on a node on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let n: WiredNode | undefined;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t, '+14155550170');
  });
  afterAll(() => t.close());
  afterEach(async () => {
    // A call these tests admitted may still be up: the drain waits for it on the node's (fake)
    // clock up to its limit, then hangs it up, so the clock runs while the node closes.
    if (n) {
      let closed = false;
      void n.close().finally(() => (closed = true));
      for (let i = 0; i < 20_000 && !closed; i++) {
        t.clock.advance(100);
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(closed).toBe(true);
    }
    n = undefined;
  });

  const carrier: Source = { transport: 'UDP', address: '203.0.113.10', port: 5060 };
  const callsWith = (callId: string) =>
    t.store.db.selectFrom('calls').selectAll().where('sip_call_id', '=', callId).execute();

  it('answers the INVITE over MAX_CALLS_PER_SECOND 503 with Retry-After, with no call row, and admits the one before it', async () => {
    const events: TelemetryEvent[] = [];
    const stop = observeTelemetry((e) => events.push(e));
    try {
      n = await wiredNode(t, { admission: { maxCallsPerSecond: 1, maxConcurrentCalls: 100 } });
      const wire = n.wire;
      const finalOf = (callId: string) =>
        wire.responses().find((r) => r.message.callId === callId && r.message.status >= 200)?.message;
      for (const [i, callId] of ['first@carrier', 'second@carrier'].entries()) {
        wire.deliver(
          carrierInvite(w, {
            via: `SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKov${i}`,
            callId,
            sdp: carrierSdp(40100 + 2 * i, '0 101'),
          }),
          carrier,
        );
      }
      await settle(() => finalOf('second@carrier') !== undefined);
      const refused = finalOf('second@carrier')!;
      expect(refused.status).toBe(503);
      expect(getHeader(refused, 'Retry-After')).toBe('1');
      expect(await callsWith('second@carrier')).toEqual([]);
      await settle(() => finalOf('first@carrier') !== undefined);
      expect(finalOf('first@carrier')!.status).toBe(200);
      expect(await callsWith('first@carrier')).toHaveLength(1);
      expect(events).toContainEqual({ kind: 'call.refused', reason: 'max_calls_per_second' });
      expect(n.node.overload.state).toMatchObject({ rateLimit: 1, concurrentLimit: 100 });
    } finally {
      stop();
    }
  });

  it('tells the derived rate how long each admitted INVITE took to its answer', async () => {
    n = await wiredNode(t, { admission: { maxConcurrentCalls: 100 } });
    const wire = n.wire;
    wire.deliver(
      carrierInvite(w, {
        via: 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKsetup',
        callId: 'timed@carrier',
        sdp: carrierSdp(40200, '0 101'),
      }),
      carrier,
    );
    // The set-up's store work and media binding take fake time: a millisecond per turn of the loop
    // for the first 20 turns, then real waits only, so a slow database (PostgreSQL on a busy
    // machine takes far more than 20 turns) cannot run the fake clock into the call's own timers.
    const answered = (): boolean =>
      wire.responses().some((r) => r.message.callId === 'timed@carrier' && r.message.status === 200);
    let advanced = 0;
    for (let i = 0; i < 20_000 && !answered(); i++) {
      if (advanced < 20) {
        advanced++;
        t.clock.advance(1);
        await new Promise((r) => setImmediate(r));
      } else await new Promise((r) => setTimeout(r, 1));
    }
    expect(answered()).toBe(true);
    expect(advanced).toBeGreaterThan(0);
    t.clock.advance(1000 - advanced);
    const { setUpP99Ms, derived } = n.node.overload.state;
    expect(derived).toEqual({ concurrent: false, rate: true });
    expect(setUpP99Ms).toBeGreaterThan(0);
    expect(setUpP99Ms).toBeLessThanOrEqual(advanced);
  });
});
