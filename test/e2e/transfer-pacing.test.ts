// A second leg through a carrier that caps the INVITE rate (carrier_a: 30 per second) takes its
// slot from the node's pacing, as POST /calls does: the dialler asks `pace` for the termination
// host before any INVITE, and a caller gone while it waited gets `caller_hangup` with nothing sent.
// A generic trunk is not paced. Real store (trunk, sealed password), real SIP stack; `pace` is the
// call host's seam (InvitePacer.slot in a node), held here so the test decides when the slot comes.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { createSecondLegDialler } from '../../src/telephony/calls/transfer/transfer.js';
import type { TransferContext } from '../../src/telephony/calls/transfer/transfer-context.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { joinedCaller, transferWorld, type Cleanup } from './testing/transfer-peers.js';

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

async function setup(provider: 'carrier_a' | 'generic') {
  const { t, call } = await transferWorld(
    cleanup,
    { termination_uri: 'sip:acme.pstn.twilio.com', auth: { username: 'acct', password: 'pw' } },
    'inbound',
  );
  await t.store.db.updateTable('sip_trunks').set({ provider }).execute();
  const stack = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
  cleanup.push(() => stack.close());
  const ours = (await stack.listen()).udp!;
  const sent: string[] = [];
  const ports = new RtpPortAllocator(30000 + 2 * Math.floor(Math.random() * 4000), 39999);
  const callerSide = await joinedCaller(ports, cleanup);
  const gone = new AbortController();
  const slots: Array<{ host: string; perSecond: number; release: () => void }> = [];
  const ctx: TransferContext = {
    leg: { sendInDialog: () => Promise.reject(new Error('unused')), onRequest: () => undefined },
    restoreRequests: () => undefined,
    rtp: callerSide.rtp,
    call,
    deps: { ...t.deps, clock: systemClock },
    stack,
    local: { host: '127.0.0.1', port: ours },
    ports,
    callerGone: gone.signal,
    suspendMedia: () => undefined,
    resumeMedia: () => undefined,
    pace: (host, perSecond) => new Promise<void>((release) => slots.push({ host, perSecond, release })),
    // Where an INVITE would go: recorded, never sent anywhere.
    resolve: async (target) => {
      sent.push(target.host);
      throw new Error('no INVITE may leave in this test');
    },
  };
  return { ctx, gone, slots, sent };
}

describe('second legs share the carrier pacing of POST /calls', () => {
  it('carrier_a: waits for its slot at the termination host (30/s); caller gone meanwhile: no INVITE', async () => {
    const s = await setup('carrier_a');
    const result = createSecondLegDialler()(s.ctx, 'tel:+15550177', { signal: new AbortController().signal });
    while (s.slots.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(s.slots.map(({ host, perSecond }) => ({ host, perSecond }))).toEqual([
      { host: 'acme.pstn.twilio.com', perSecond: 30 },
    ]);
    expect(s.sent).toEqual([]);
    s.gone.abort();
    s.slots[0]!.release();
    // The leg is a call record of its own from the start, so its outcome names it.
    expect(await result).toEqual({ status: 'failed', reason: 'caller_hangup', callId: expect.any(String) });
    expect(s.sent).toEqual([]);
  });

  it('generic: not paced, the INVITE is sent at once', async () => {
    const s = await setup('generic');
    const result = createSecondLegDialler()(s.ctx, 'tel:+15550177', {
      signal: new AbortController().signal,
      timeoutMs: 60_000,
    });
    while (s.sent.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(s.slots).toEqual([]);
    expect(s.sent).toEqual(['acme.pstn.twilio.com']);
    // The resolver refused it: the leg fails (leg_failed), no slot was ever asked.
    expect((await result).status).toBe('failed');
  });
});
