// The caller's ACK and BYE read in one turn of the event loop, as a node that stalled (a loaded
// machine, a GC pause) finds them queued on its socket: the answer (in_progress, call.started) is
// still being written when the BYE asks for the end. The end must follow the answer, so the call
// ends completed / caller_hangup. Read before the answer committed (PostgreSQL, a connection each),
// the end either found the status changed under it and wrote nothing, leaving the call in_progress
// with nobody to end it, or ended first as cancelled a call the caller had been connected to.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callEvents, callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import {
  carrierInDialog,
  carrierInvite,
  carrierSdp,
  wiredNode,
  type WiredNode,
} from '../../../../test/support/wired-node.js';
import type { SipResponse } from '../../sip/message/types.js';
import type { Source } from '../../sip/transport/routing.js';

/** Lets pending callbacks and I/O run until `until` holds; no time passes on the clock. */
async function settle(until: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await until())) await new Promise<void>((r) => setImmediate(r));
}

describe.each(storeKinds())('an ACK and a BYE arriving together on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let n: WiredNode;
  let seq = 0;
  const carrier: Source = { transport: 'UDP', address: '203.0.113.10', port: 5060 };
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t, '+14155550162');
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await n?.close();
  });

  const callsWith = (callId: string) =>
    t.store.db.selectFrom('calls').selectAll().where('sip_call_id', '=', callId).execute();
  const responseTo = (callId: string, method: string) =>
    n.wire
      .responses()
      .find((r) => r.message.callId === callId && r.message.cseq.method === method && r.message.status >= 200)
      ?.message;

  it('the call is answered, then ended completed / caller_hangup, each event once', async () => {
    n = await wiredNode(t);
    const callId = `ack-bye-${++seq}@carrier`;
    n.wire.deliver(
      carrierInvite(w, {
        via: `SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKab${seq}`,
        callId,
        sdp: carrierSdp(40000, '0 101'),
      }),
      carrier,
    );
    await settle(() => responseTo(callId, 'INVITE') !== undefined);
    const ok = responseTo(callId, 'INVITE') as SipResponse;
    expect(ok.status).toBe(200);
    const [row] = await callsWith(callId);
    const live = n.node.calls.find(row!.id)!;

    // The store has a connection free for each of the two writes, as a busy node's pool does: the
    // end is not queued behind the answer's transaction for want of one.
    await Promise.all([1, 2, 3].map(() => callsWith(callId)));
    // Back to back, nothing awaited between them.
    n.wire.deliver(carrierInDialog(ok, 'ACK', { branch: `z9hG4bKaa${seq}`, cseq: 1 }), carrier);
    n.wire.deliver(carrierInDialog(ok, 'BYE', { branch: `z9hG4bKab${seq}b`, cseq: 2 }), carrier);
    expect(responseTo(callId, 'BYE')?.status).toBe(200);
    // Whatever the node does about the call is done once it has closed it.
    await live.closed;
    expect((await callsWith(callId))[0]).toMatchObject({
      status: 'completed',
      hangup_reason: 'caller_hangup',
    });
    expect((await callEvents(t, row!.id)).map((e) => e.type)).toEqual(['call.started', 'call.ended']);
    // We did not send a BYE of our own: the caller's ended the call.
    expect(n.wire.requests('BYE')).toEqual([]);
  });
});
