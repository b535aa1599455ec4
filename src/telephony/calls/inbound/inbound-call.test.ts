// Inbound calls through the call host with the SIP transports played by the test (a FakeClock, the
// real store, instant phone channels): a trunk's allowed_ips is checked against the packet's source
// address, never against what the INVITE's Via claims; SIP_CODECS orders our answer; a late offer
// (INVITE without SDP) gets our offer in the 200 and runs on the answer in the ACK, and an ACK
// without a usable answer ends the call failed / carrier_error with our BYE.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callEvents, callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { loadConfig } from '../../../config/config.js';
import {
  answerBye,
  carrierInDialog,
  carrierInvite,
  carrierSdp,
  wiredNode,
  type WiredNode,
} from '../../../../test/support/wired-node.js';
import type { SipResponse } from '../../sip/message/types.js';
import type { Source } from '../../sip/transport/routing.js';

/**
 * Lets pending callbacks and I/O (store writes, the workflow) run until `until` holds; no time
 * passes on the clock. A condition that never holds is caught by the test's timeout.
 */
async function settle(until: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await until())) await new Promise<void>((r) => setImmediate(r));
}

describe.each(storeKinds())('inbound calls and the packet source on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let n: WiredNode;
  let seq = 0;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t, '+14155550160');
    await t.store.db
      .updateTable('sip_trunks')
      .set({ allowed_ips: JSON.stringify(['203.0.113.0/24']) })
      .where('id', '=', w.trunkId)
      .execute();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await n?.close();
  });

  const callsWith = (callId: string) =>
    t.store.db.selectFrom('calls').selectAll().where('sip_call_id', '=', callId).execute();
  const finalOf = (callId: string) =>
    n.wire.responses().find((r) => r.message.callId === callId && r.message.status >= 200)?.message;

  it('a UDP INVITE without rport whose Via names an allowed address, from a source outside allowed_ips: 403', async () => {
    n = await wiredNode(t);
    const callId = `spoof-${++seq}@carrier`;
    const outsider: Source = { transport: 'UDP', address: '198.51.100.7', port: 5060 };
    n.wire.deliver(
      carrierInvite(w, {
        via: 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKspoof',
        callId,
        sdp: carrierSdp(40000, '0 101'),
      }),
      outsider,
    );
    await settle(() => finalOf(callId) !== undefined);
    expect(finalOf(callId)?.status).toBe(403);
    // Sent to the packet's address (RFC 3261 18.2.2 received), not to the address claimed.
    const refusal = n.wire.responses().find((r) => r.message.status === 403)!;
    expect(refusal.to).toMatchObject({ host: '198.51.100.7', port: 5060 });
    expect(await callsWith(callId)).toEqual([]);
  });

  it('a source inside allowed_ips whose Via names another address is admitted, answered and run', async () => {
    n = await wiredNode(t);
    const callId = `natted-${++seq}@carrier`;
    const carrier: Source = { transport: 'UDP', address: '203.0.113.10', port: 40123 };
    n.wire.deliver(
      carrierInvite(w, {
        // A carrier behind NAT: its Via names its private address.
        via: 'SIP/2.0/UDP 10.1.2.3:5060;branch=z9hG4bKnat',
        callId,
        sdp: carrierSdp(40000, '0 101'),
      }),
      carrier,
    );
    await settle(() => finalOf(callId) !== undefined);
    const statuses = n.wire.responses().map((r) => r.message.status);
    expect(statuses).toEqual([100, 180, 200]);
    const ok = finalOf(callId) as SipResponse;
    const [call] = await callsWith(callId);
    expect(call).toMatchObject({ direction: 'inbound', status: 'ringing' });

    n.wire.deliver(carrierInDialog(ok, 'ACK', { branch: 'z9hG4bKack', cseq: 1 }), carrier);
    // The workflow (hello, then hang up) runs on the instant channel: we send BYE.
    await settle(() => n.wire.requests('BYE').length > 0);
    answerBye(n.wire, carrier);
    await settle(async () => (await callsWith(callId))[0]?.status === 'completed');
    expect((await callsWith(callId))[0]).toMatchObject({
      status: 'completed',
      hangup_reason: 'workflow_hangup',
    });
  });
});

describe.each(storeKinds())(
  'inbound late offer (INVITE without SDP) on $name, SIP_CODECS=PCMA,PCMU',
  (kind) => {
    let t: TestApi;
    let w: CallWorld;
    let n: WiredNode;
    let seq = 0;
    const carrier: Source = { transport: 'UDP', address: '203.0.113.10', port: 5060 };
    beforeAll(async () => {
      const base = loadConfig({});
      t = await startTestApi(kind, { config: { sip: { ...base.sip, codecs: ['PCMA', 'PCMU'] } } });
      w = await callWorld(t, '+14155550161');
    });
    afterAll(() => t.close());
    afterEach(async () => {
      await n?.close();
    });

    const callsWith = (callId: string) =>
      t.store.db.selectFrom('calls').selectAll().where('sip_call_id', '=', callId).execute();
    const oks = (callId: string) =>
      n.wire.responses().filter((r) => r.message.callId === callId && r.message.status === 200);
    const bodyOf = (m: { body: Uint8Array }) => new TextDecoder().decode(m.body);

    /** A late-offer INVITE, answered: our 200 (with our offer) and the call's record id. */
    async function invited(): Promise<{ callId: string; ok: SipResponse; id: string }> {
      n = await wiredNode(t);
      const callId = `late-${++seq}@carrier`;
      n.wire.deliver(
        carrierInvite(w, { via: `SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKl${seq}`, callId }),
        carrier,
      );
      await settle(() => oks(callId).length > 0);
      const [row] = await callsWith(callId);
      return { callId, ok: oks(callId)[0]!.message, id: row!.id };
    }

    it('an INVITE with an offer is answered in SIP_CODECS order: PCMA first', async () => {
      n = await wiredNode(t);
      const callId = `early-${++seq}@carrier`;
      n.wire.deliver(
        carrierInvite(w, {
          via: 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKe1',
          callId,
          sdp: carrierSdp(40000, '0 8 101'),
        }),
        carrier,
      );
      await settle(() => oks(callId).length > 0);
      expect(bodyOf(oks(callId)[0]!.message)).toMatch(/m=audio \d+ RTP\/AVP 8 0 101\r\n/);
      const ok = oks(callId)[0]!.message;
      n.wire.deliver(carrierInDialog(ok, 'BYE', { branch: 'z9hG4bKeb', cseq: 2 }), carrier);
      await settle(async () => (await callsWith(callId))[0]?.status !== 'ringing');
    });

    it('our 200 carries our offer, resent until the ACK; the answer in the ACK is applied and the call runs', async () => {
      const { callId, ok, id } = await invited();
      expect(n.wire.responses().map((r) => r.message.status)).toEqual([100, 180, 200]);
      // Our codec list in SIP_CODECS order, with telephone-event, and our RTP port.
      expect(ok.headers.find((h) => h.name === 'Content-Type')?.value).toBe('application/sdp');
      expect(bodyOf(ok)).toMatch(/m=audio \d+ RTP\/AVP 8 0 101\r\n/);
      // RFC 3261 13.3.1.4: resent at T1 (UDP) while no ACK comes.
      t.clock.advance(500);
      expect(oks(callId)).toHaveLength(2);
      expect(bodyOf(oks(callId)[1]!.message)).toBe(bodyOf(ok));
      const rtp = n.node.calls.find(id)!.rtp;
      expect(rtp.destination).toBeNull();

      // The caller answers with PCMU (our second choice) at its own media address.
      n.wire.deliver(
        carrierInDialog(ok, 'ACK', { branch: 'z9hG4bKla', cseq: 1, sdp: carrierSdp(40010, '0 101') }),
        carrier,
      );
      expect(rtp.destination).toEqual({ address: '127.0.0.1', port: 40010 });
      t.clock.advance(4000);
      expect(oks(callId)).toHaveLength(2);
      // The workflow runs (hello, then hangup): we hang up, the call completed as any other.
      await settle(() => n.wire.requests('BYE').length > 0);
      answerBye(n.wire, carrier);
      await settle(async () => (await callsWith(callId))[0]?.status === 'completed');
      expect((await callsWith(callId))[0]).toMatchObject({ hangup_reason: 'workflow_hangup' });
      expect((await callEvents(t, id)).map((e) => e.type)).toEqual(['call.started', 'call.ended']);
    });

    for (const [what, sdp] of [
      ['no answer at all', undefined],
      ['an answer with no format we offered (G.729)', carrierSdp(40020, '18')],
    ] as const) {
      it(`an ACK with ${what}: BYE, and the call ends failed / carrier_error without connecting`, async () => {
        const { callId, ok, id } = await invited();
        n.wire.deliver(
          carrierInDialog(ok, 'ACK', { branch: 'z9hG4bKlx', cseq: 1, ...(sdp ? { sdp } : {}) }),
          carrier,
        );
        await settle(() => n.wire.requests('BYE').length > 0);
        const bye = answerBye(n.wire, carrier);
        expect(bye.callId).toBe(callId);
        await settle(async () => (await callsWith(callId))[0]?.status !== 'ringing');
        expect((await callsWith(callId))[0]).toMatchObject({
          status: 'failed',
          hangup_reason: 'carrier_error',
          started_at: null,
        });
        expect((await callEvents(t, id)).map((e) => e.type)).toEqual(['call.ended']);
        const session = await t.store.db
          .selectFrom('sessions')
          .select(['status'])
          .where('call_id', '=', id)
          .executeTakeFirstOrThrow();
        expect(session.status).toBe('ended');
        // The 200 is no longer resent once the ACK came.
        t.clock.advance(4000);
        expect(oks(callId)).toHaveLength(1);
      });
    }
  },
);
