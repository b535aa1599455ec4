// RTP/SAVP offers at the call host (the SIP transports played by the test, the real store): over
// UDP the offer's keys crossed the network in the clear, so it is refused 488 with a Warning that
// says so (recorded failed / media_unsupported: the number is ours); over TLS it is answered
// RTP/SAVP with one a=crypto of ours, under the suite and tag the offer named, and the call runs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
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

async function settle(until: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await until())) await new Promise<void>((r) => setImmediate(r));
}

const KEY = Buffer.alloc(30, 7).toString('base64');
const savp = (port: number) =>
  carrierSdp(port, '0 101')
    .replace('RTP/AVP', 'RTP/SAVP')
    .replace('a=sendrecv', `a=crypto:3 AES_CM_128_HMAC_SHA1_32 inline:${KEY}\r\na=sendrecv`);

describe.each(storeKinds())('inbound RTP/SAVP offers on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let n: WiredNode;
  let seq = 0;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t, '+14155550170');
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await n?.close();
  });

  const callsWith = (callId: string) =>
    t.store.db.selectFrom('calls').selectAll().where('sip_call_id', '=', callId).execute();
  const finalOf = (callId: string) =>
    n.wire.responses().find((r) => r.message.callId === callId && r.message.status >= 200)?.message;

  it('over UDP: 488 with a Warning saying the keys came over a plain transport, recorded for the number', async () => {
    n = await wiredNode(t);
    const callId = `savp-udp-${++seq}@carrier`;
    const carrier: Source = { transport: 'UDP', address: '203.0.113.10', port: 5060 };
    n.wire.deliver(
      carrierInvite(w, {
        via: 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKsavp1',
        callId,
        sdp: savp(40000),
      }),
      carrier,
    );
    await settle(() => finalOf(callId) !== undefined);
    const refusal = finalOf(callId) as SipResponse;
    expect(refusal.status).toBe(488);
    expect(refusal.headers.find((h) => h.name === 'Warning')?.value).toMatch(
      /^399 \S+ "SRTP keys offered over a plain transport"$/,
    );
    expect(await callsWith(callId)).toMatchObject([{ status: 'failed', hangup_reason: 'media_unsupported' }]);
  });

  it('over TLS: answered RTP/SAVP with our key under the offered suite and tag, and the call runs', async () => {
    n = await wiredNode(t);
    const callId = `savp-tls-${++seq}@carrier`;
    const carrier: Source = { transport: 'TLS', address: '203.0.113.10', port: 5061, connectionId: 'c1' };
    n.wire.deliver(
      carrierInvite(w, {
        via: 'SIP/2.0/TLS 203.0.113.10:5061;branch=z9hG4bKsavp2',
        callId,
        sdp: savp(40002),
      }),
      carrier,
    );
    await settle(() => finalOf(callId) !== undefined);
    const ok = finalOf(callId) as SipResponse;
    expect(ok.status).toBe(200);
    const answer = new TextDecoder().decode(ok.body);
    expect(answer).toMatch(/m=audio \d+ RTP\/SAVP 0 101/);
    const crypto = answer.split('\r\n').filter((l) => l.startsWith('a=crypto:'));
    expect(crypto).toHaveLength(1);
    expect(crypto[0]).toMatch(/^a=crypto:3 AES_CM_128_HMAC_SHA1_32 inline:[A-Za-z0-9+/]{40}$/);
    expect(crypto[0]).not.toContain(KEY);
    n.wire.deliver(carrierInDialog(ok, 'ACK', { branch: 'z9hG4bKsavpack', cseq: 1 }), carrier);
    await settle(() => n.wire.requests('BYE').length > 0);
    answerBye(n.wire, carrier);
    await settle(async () => (await callsWith(callId))[0]?.status === 'completed');
  });
});
