// An outbound leg between two stacks on loopback: the first 407 answered with credentials, ringing,
// answer with SDP, ACK, BYE either way, and CANCEL (held back until a provisional).
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Dialog } from './dialog/dialog.js';
import { dialogFromUas, isDialog, requestInDialog } from './dialog/dialog.js';
import { DigestServer } from './digest-server.js';
import { getHeaders } from './message/access.js';
import { createReply } from './message/build.js';
import type { SipRequest } from './message/types.js';
import { formatUri } from './message/uri.js';
import { SipStack } from './stack.js';
import type { ServerTransaction } from './transaction/server.js';
import { requestDestination } from './transport/routing.js';
import { UacLeg } from './uac-leg.js';

const stacks: SipStack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        resolve();
      }
    }, 2);
  });
}

interface FarEnd {
  port: number;
  stack: SipStack;
  invites: SipRequest[];
  ringing?: ServerTransaction;
  dialog?: Dialog;
  acks: number;
  byes: number;
}

/** A small UAS: challenges once, rings, and answers unless told to keep ringing. */
async function farEnd(answer: boolean): Promise<FarEnd> {
  const clock = new FakeClock();
  const digest = new DigestServer({ realm: 'trunk.test', secret: 'k', clock });
  let n = 0;
  const far: FarEnd = { port: 0, stack: undefined as unknown as SipStack, invites: [], acks: 0, byes: 0 };
  far.stack = new SipStack({
    clock,
    host: '127.0.0.1',
    port: 0,
    newTag: () => `far${++n}`,
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      far.invites.push(req);
      const creds = getHeaders(req, 'Proxy-Authorization');
      const ok = digest.verify({ method: 'INVITE', uri: formatUri(req.uri), credentials: creds }, () => ({
        password: 'pw',
      }));
      if (!ok.ok) {
        tx.respond(
          createReply(req, 407, 'Proxy Authentication Required', {
            toTag: 'c',
            headers: ok.challenge.map((c) => ['Proxy-Authenticate', c] as const),
          }),
        );
        return true;
      }
      tx.respond(createReply(req, 180, 'Ringing', { toTag: 'far-tag' }));
      far.ringing = tx;
      if (!answer) return true;
      const res = createReply(req, 200, 'OK', {
        toTag: 'far-tag',
        headers: [
          ['Contact', `<sip:far@127.0.0.1:${far.port}>`],
          ['Content-Type', 'application/sdp'],
        ],
        body: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n',
      });
      const d = dialogFromUas(req, res);
      if (isDialog(d)) {
        far.dialog = d;
        far.stack.registerDialog(d.id, (r, t) => {
          if (r.method === 'ACK') far.acks++;
          if (r.method === 'BYE') {
            far.byes++;
            t?.respond(createReply(r, 200, 'OK'));
          }
        });
      }
      tx.respond(res);
      return true;
    },
  });
  stacks.push(far.stack);
  far.port = (await far.stack.listen()).udp!;
  return far;
}

async function nearEnd() {
  let n = 0;
  const stack = new SipStack({ clock: new FakeClock(), host: '127.0.0.1', port: 0 });
  stacks.push(stack);
  const port = (await stack.listen()).udp!;
  const answers: string[] = [];
  const leg = new UacLeg({
    stack,
    localHost: '127.0.0.1',
    localPort: port,
    newId: () => `id${++n}`,
    offer: () => 'v=0\r\n',
    onAnswer: (a) => answers.push(a),
  });
  const events: string[] = [];
  const sink = {
    provisional: (s: number) => events.push(`${s}`),
    final: (s: number, i: { withCredentials: boolean }) =>
      events.push(`final ${s}${i.withCredentials ? ' creds' : ''}`),
    bye: () => events.push('bye'),
    transportError: () => events.push('error'),
  };
  return { stack, leg, events, answers, sink };
}

const target = (port: number) => ({
  uri: `sip:+15550100@127.0.0.1:${port}`,
  host: '127.0.0.1',
  port,
  transport: 'udp' as const,
});
const opts = { from: '+15550199', auth: { username: 'acct', password: 'pw' }, callId: 'call-1' };

describe('UacLeg', () => {
  it('answers the challenge once, rings, is answered and ACKs, then hears the far end hang up', async () => {
    const far = await farEnd(true);
    const near = await nearEnd();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.acks === 1);
    expect(near.events).toEqual(['100', '100', '180', 'final 200 creds']);
    expect(far.invites).toHaveLength(2);
    expect(far.invites[1].cseq.seq).toBe(2);
    expect(near.answers[0]).toContain('m=audio 4000 RTP/AVP 0');
    const bye = requestInDialog(far.dialog!, {
      method: 'BYE',
      via: `SIP/2.0/UDP 127.0.0.1:${far.port};branch=z9hG4bKfarbye`,
    });
    let byeStatus = 0;
    far.stack.transactions.sendRequest(bye.request, requestDestination(bye.request)!, {
      onResponse: (r) => (byeStatus = r.status),
    });
    await until(() => byeStatus === 200);
    expect(near.events.at(-1)).toBe('bye');
  });

  it('sends BYE through the dialog when we hang up', async () => {
    const far = await farEnd(true);
    const near = await nearEnd();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.acks === 1);
    near.leg.bye();
    await until(() => far.byes === 1);
  });

  it('cancels a ringing call: 200 for the CANCEL, 487 reported for the INVITE', async () => {
    const far = await farEnd(false);
    const near = await nearEnd();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => near.events.includes('180'));
    near.leg.cancel();
    await until(() => near.events.some((e) => e.startsWith('final')));
    expect(near.events.at(-1)).toBe('final 487 creds');
  });

  it('holds a CANCEL back until the first provisional (RFC 3261 9.1)', async () => {
    const far = await farEnd(false);
    const near = await nearEnd();
    near.leg.invite(target(far.port), { ...opts, auth: { username: 'acct', password: 'pw' } }, near.sink);
    near.leg.cancel();
    await until(() => near.events.some((e) => e.startsWith('final')));
    // The CANCEL went after the 100; a cancelled leg does not answer the challenge, it reports the 407.
    expect(near.events).toEqual(['100', 'final 407']);
  });
});
