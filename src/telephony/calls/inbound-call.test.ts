// Inbound calls through the call host with the SIP transports played by the test (a FakeClock, the
// real store, instant phone channels): a trunk's allowed_ips is checked against the packet's source
// address, never against what the INVITE's Via claims.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { callWorld, type CallWorld } from '../../../test/support/calls.js';
import { storeKinds } from '../../../test/support/stores.js';
import {
  answerBye,
  carrierInDialog,
  carrierInvite,
  carrierSdp,
  wiredNode,
  type WiredNode,
} from '../../../test/support/wired-node.js';
import type { SipResponse } from '../sip/message/types.js';
import type { Source } from '../sip/transport/routing.js';

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
