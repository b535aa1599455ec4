// UacLeg asking again after a 422 (RFC 4028 7.4), on a FakeWire and a FakeClock: a scripted
// carrier answers our INVITE 422 with its Min-SE; the retry is the same call attempt (Call-ID, From
// tag) as a new transaction (CSeq + 1, new branch) asking for at least that interval, with the
// trunk's credentials answered afresh when a challenge came first; at most two retries.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { DigestServer } from './digest-server.js';
import { getHeader, getHeaders } from './message/access.js';
import { createReply, type HeaderInit } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { formatUri } from './message/uri.js';
import { SipStack } from './stack.js';
import { FakeWire, type PeerContext } from '../../../test/support/fake-wire.js';
import { UacLeg } from './uac-leg.js';

const US = { host: '192.0.2.1', port: 5060 };
const CARRIER = { host: '192.0.2.50', port: 5060 };
const TIMER_HEADERS: HeaderInit[] = [
  ['Supported', 'timer'],
  ['Session-Expires', '1800'],
  ['Min-SE', '90'],
];
const SDP =
  'v=0\r\no=- 1 1 IN IP4 192.0.2.50\r\ns=-\r\nc=IN IP4 192.0.2.50\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n';

type Answer = (req: SipRequest, n: number) => [number, HeaderInit[]];

function setup(answer: Answer) {
  const clock = new FakeClock();
  const wire = new FakeWire();
  const stack = new SipStack({ clock, host: US.host });
  wire.attach(stack, US.host, US.port);
  const invites: SipRequest[] = [];
  wire.peer(CARRIER.host, CARRIER.port, (m, ctx: PeerContext) => {
    if (m.kind !== 'request' || m.method !== 'INVITE') return;
    invites.push(m);
    const [status, headers] = answer(m, invites.length);
    const ok = status < 300;
    ctx.send(
      createReply(m, status, ok ? 'OK' : 'No', {
        toTag: 'carrier',
        headers: ok
          ? [['Contact', `<sip:c@${CARRIER.host}>`], ['Content-Type', 'application/sdp'], ...headers]
          : headers,
        ...(ok ? { body: SDP } : {}),
      }),
    );
  });
  let n = 0;
  const twoxx: SipResponse[] = [];
  const leg = new UacLeg({
    stack,
    localHost: US.host,
    localPort: US.port,
    newId: () => `id${++n}`,
    offer: () => 'v=0\r\n',
    inviteHeaders: TIMER_HEADERS,
    on2xx: (res) => twoxx.push(res),
  });
  const events: string[] = [];
  leg.invite(
    { uri: `sip:+15550100@${CARRIER.host}`, host: CARRIER.host, port: CARRIER.port, transport: 'udp' },
    { from: '+15550199', auth: { username: 'acct', password: 'pw' }, callId: 'call-1' },
    {
      provisional: (s) => events.push(`${s}`),
      final: (s, i) => events.push(`final ${s}${i.withCredentials ? ' creds' : ''}`),
      bye: () => events.push('bye'),
      transportError: () => events.push('error'),
    },
  );
  return { clock, wire, invites, events, twoxx };
}

const tooSmall = (minSE: string): [number, HeaderInit[]] => [422, [['Min-SE', minSE]]];

describe('UacLeg after a 422 (Session Interval Too Small)', () => {
  it("asks again with the 422's Min-SE: same Call-ID and From tag, CSeq + 1, new branch; answered, ACKed", async () => {
    const t = setup((_req, n) =>
      n === 1 ? tooSmall('3600') : [200, [['Session-Expires', '3600;refresher=uac']]],
    );
    await t.wire.flush();
    expect(t.invites).toHaveLength(2);
    const [first, second] = t.invites as [SipRequest, SipRequest];
    expect(getHeader(first, 'Session-Expires')).toBe('1800');
    expect(getHeader(second, 'Session-Expires')).toBe('3600');
    expect(getHeader(second, 'Min-SE')).toBe('3600');
    expect(getHeader(second, 'Supported')).toBe('timer');
    expect(second.callId).toBe(first.callId);
    expect(second.from.tag).toBe(first.from.tag);
    expect(second.to.tag).toBeUndefined();
    expect(second.cseq).toEqual({ seq: 2, method: 'INVITE' });
    expect(second.via[0]!.branch).not.toBe(first.via[0]!.branch);
    expect(new TextDecoder().decode(second.body)).toBe('v=0\r\n');
    // The 422 got its ACK from the transaction layer; the 2xx its own, with the retry's CSeq.
    const acks = t.wire.requests('ACK');
    expect(acks.map((a) => a.cseq.seq)).toEqual([1, 2]);
    expect(t.events).toEqual(['final 200']);
    expect(t.twoxx).toHaveLength(1);
    expect(getHeader(t.twoxx[0]!, 'Session-Expires')).toBe('3600;refresher=uac');
  });

  it('after a digest challenge, the retry carries the credentials again with the next nonce count', async () => {
    const clock = new FakeClock();
    const digest = new DigestServer({ realm: 'trunk.test', secret: 'k', clock });
    const verified: boolean[] = [];
    const t = setup((req, n) => {
      if (n === 1) return [407, digest.challenge().map((c) => ['Proxy-Authenticate', c] as const)];
      const creds = getHeaders(req, 'Proxy-Authorization');
      const check = digest.verify({ method: 'INVITE', uri: formatUri(req.uri), credentials: creds }, () => ({
        password: 'pw',
      }));
      verified.push(check.ok);
      return n === 2 ? tooSmall('1900') : [200, []];
    });
    await t.wire.flush();
    expect(t.invites.map((i) => i.cseq.seq)).toEqual([1, 2, 3]);
    // Both attempts after the challenge pass the server's check, replay (nonce count) included.
    expect(verified).toEqual([true, true]);
    expect(getHeader(t.invites[2]!, 'Proxy-Authorization')).toMatch(/nc=00000002/);
    expect(getHeaders(t.invites[2]!, 'Proxy-Authorization')).toHaveLength(1);
    expect(getHeader(t.invites[2]!, 'Session-Expires')).toBe('1900');
    expect(t.events).toEqual(['final 200 creds']);
  });

  it('a challenge after the retry is answered too, keeping the longer interval', async () => {
    const t = setup((_req, n) =>
      n === 1
        ? tooSmall('3600')
        : n === 2
          ? [401, [['WWW-Authenticate', 'Digest realm="trunk.test", nonce="abc", algorithm=MD5']]]
          : [200, []],
    );
    await t.wire.flush();
    expect(t.invites.map((i) => [i.cseq.seq, getHeader(i, 'Session-Expires')])).toEqual([
      [1, '1800'],
      [2, '3600'],
      [3, '3600'],
    ]);
    expect(getHeader(t.invites[2]!, 'Authorization')).toContain('realm="trunk.test"');
    expect(t.events).toEqual(['final 200 creds']);
  });

  it('at most two retries: a third 422 is the final answer', async () => {
    const t = setup((_req, n) => tooSmall(String(1800 + n * 100)));
    await t.wire.flush();
    expect(t.invites.map((i) => getHeader(i, 'Session-Expires'))).toEqual(['1800', '1900', '2000']);
    expect(t.events).toEqual(['final 422']);
  });

  it('a 422 without a Min-SE, or with one we already asked for, is not retried', async () => {
    const none = setup(() => [422, []]);
    await none.wire.flush();
    expect(none.invites).toHaveLength(1);
    expect(none.events).toEqual(['final 422']);
    const odd = setup(() => tooSmall('600'));
    await odd.wire.flush();
    expect(odd.invites).toHaveLength(1);
    expect(odd.events).toEqual(['final 422']);
  });
});
