// An inbound leg answered by UasLeg and called by UacLeg, two stacks on loopback: ringing, the
// answer with its ACK, hang-up either way, the caller's CANCEL, and a 2xx never acknowledged.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { parseMessage } from './message/parse.js';
import type { Respond } from './dialog-requests.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { SipStack } from './stack.js';
import { UacLeg } from './uac-leg.js';
import { UasLeg } from './uas-leg.js';

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

const SDP =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n';

async function callee(answer: boolean, extra: { largeRequestsOverTcp?: boolean } = {}) {
  const clock = new FakeClock();
  let n = 0;
  const events: string[] = [];
  const legs: UasLeg[] = [];
  let port = 0;
  const stack = new SipStack({
    clock,
    host: '127.0.0.1',
    port: 0,
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `u${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
          ...extra,
        },
        req,
        tx,
        {
          cancelled: () => events.push('cancelled'),
          bye: () => events.push('bye'),
          ackTimeout: () => events.push('ack-timeout'),
        },
      );
      legs.push(leg);
      leg.ring();
      if (answer) leg.answer(SDP);
      return true;
    },
  });
  stacks.push(stack);
  port = (await stack.listen()).udp!;
  return { stack, clock, events, legs, port };
}

async function caller(extra: { largeRequestsOverTcp?: boolean } = {}) {
  let n = 0;
  const clock = new FakeClock();
  const stack = new SipStack({ clock, host: '127.0.0.1', port: 0 });
  stacks.push(stack);
  const port = (await stack.listen()).udp!;
  const events: string[] = [];
  const leg = new UacLeg({
    stack,
    localHost: '127.0.0.1',
    localPort: port,
    newId: () => `c${++n}`,
    offer: () => SDP,
    ...extra,
  });
  const sink = {
    provisional: (s: number) => events.push(`${s}`),
    final: (s: number) => events.push(`final ${s}`),
    bye: () => events.push('bye'),
    transportError: () => events.push('error'),
    ackTimeout: () => events.push('ack-timeout'),
  };
  return { leg, events, sink, clock, stack, port };
}

const target = (port: number) => ({
  uri: `sip:+15550100@127.0.0.1:${port}`,
  host: '127.0.0.1',
  port,
  transport: 'udp' as const,
});
const opts = { from: '+15550199', auth: { username: 'u', password: 'p' }, callId: 'x' };

describe('UasLeg', () => {
  it('rings and answers; the ACK stops the 2xx; the caller hangs up', async () => {
    const far = await callee(true);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    expect(near.events).toEqual(['100', '180', 'final 200']);
    far.clock.advance(40_000);
    expect(far.events).toEqual([]);
    near.leg.bye();
    await until(() => far.events.includes('bye'));
  });

  it('hangs up from our side', async () => {
    const far = await callee(true);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    far.legs[0].bye();
    await until(() => near.events.includes('bye'));
  });

  it('hears the caller cancel while ringing', async () => {
    const far = await callee(false);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => near.events.includes('180'));
    near.leg.cancel();
    await until(() => far.events.includes('cancelled') && near.events.includes('final 487'));
  });

  it('resends the 2xx until 64*T1 when no ACK comes, then says so', async () => {
    const far = await callee(true);
    const raw = createSocket('udp4');
    const got: SipResponse[] = [];
    raw.on('message', (m) => got.push(parseMessage(m) as SipResponse));
    await new Promise<void>((r) => raw.bind(0, '127.0.0.1', () => r()));
    const p = raw.address().port;
    raw.send(
      [
        `INVITE sip:+15550100@127.0.0.1:${far.port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${p};branch=z9hG4bKnoack;rport`,
        'Max-Forwards: 70',
        'From: <sip:a@127.0.0.1>;tag=a',
        `To: <sip:+15550100@127.0.0.1:${far.port}>`,
        'Call-ID: noack',
        'CSeq: 1 INVITE',
        `Contact: <sip:a@127.0.0.1:${p}>`,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
      far.port,
      '127.0.0.1',
    );
    await until(() => got.filter((r) => r.status === 200).length === 1);
    // Resent at T1 and 3*T1 (T1, then doubling) on the callee's clock.
    far.clock.advance(1500);
    await until(() => got.filter((r) => r.status === 200).length === 3);
    far.clock.advance(30_499);
    expect(far.events).toEqual([]);
    far.clock.advance(1);
    expect(far.events).toEqual(['ack-timeout']);
    raw.close();
  });

  it('sends in-dialog requests either way and hands unhandled ones to the owner', async () => {
    const far = await callee(true);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    const heard: string[] = [];
    far.legs[0].onRequest((req, respond) => {
      if (req.method !== 'NOTIFY') return false;
      heard.push(new TextDecoder().decode(req.body));
      respond(200, 'OK');
      return true;
    });
    // The callee's NOTIFY reaches its owner; an unhandled REFER is 501 by default.
    const notify = await near.leg.sendInDialog('NOTIFY', {
      headers: [
        ['Event', 'refer'],
        ['Content-Type', 'message/sipfrag'],
      ],
      body: 'SIP/2.0 200 OK',
    });
    expect(notify.status).toBe(200);
    expect(heard).toEqual(['SIP/2.0 200 OK']);
    expect((await near.leg.sendInDialog('REFER')).status).toBe(501);
    // The other way: the caller's owner answers an INFO with 202; without it, INFO is 200.
    expect((await far.legs[0].sendInDialog('INFO')).status).toBe(200);
    near.leg.onRequest((_req, respond) => {
      respond(202, 'Accepted');
      return true;
    });
    expect((await far.legs[0].sendInDialog('INFO')).status).toBe(202);
    far.legs[0].bye();
    await until(() => near.events.includes('bye'));
    await expect(far.legs[0].sendInDialog('INFO')).rejects.toThrow(/dialog/);
  });

  it("sends its BYE back on a TCP caller's own connection when the Contact cannot be reached", async () => {
    const far = await callee(true);
    const socket = connect(far.port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    const local = `127.0.0.1:${socket.localPort}`;
    const dialog = ['From: <sip:a@127.0.0.1>;tag=a', 'Call-ID: tcp-reuse'];
    socket.write(
      [
        `INVITE sip:+15550100@127.0.0.1:${far.port};transport=tcp SIP/2.0`,
        `Via: SIP/2.0/TCP ${local};branch=z9hG4bKtcp1;rport`,
        'Max-Forwards: 70',
        ...dialog,
        `To: <sip:+15550100@127.0.0.1:${far.port}>`,
        'CSeq: 1 INVITE',
        // Port 9 (discard): nothing listens there, as for a phone behind NAT or a TLS-only client.
        'Contact: <sip:a@127.0.0.1:9;transport=tcp>',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
    );
    await until(() => /SIP\/2\.0 200 OK/.test(text));
    const toTag = /^To:.*;tag=([^;\s]+)/m.exec(text)![1];
    socket.write(
      [
        `ACK sip:a@127.0.0.1:9;transport=tcp SIP/2.0`,
        `Via: SIP/2.0/TCP ${local};branch=z9hG4bKtcp2;rport`,
        'Max-Forwards: 70',
        ...dialog,
        `To: <sip:+15550100@127.0.0.1:${far.port}>;tag=${toTag}`,
        'CSeq: 1 ACK',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
    );
    await until(() => far.legs[0]?.acked === true);
    far.legs[0].bye();
    await until(() => /^BYE sip:a@127\.0\.0\.1:9;transport=tcp SIP\/2\.0/m.test(text));
    socket.destroy();
  });
  it("resends our 2xx to the caller's re-INVITE until its ACK, and says so when none comes (13.3.1.4)", async () => {
    const far = await callee(true);
    const raw = createSocket('udp4');
    const got: SipResponse[] = [];
    raw.on('message', (m) => got.push(parseMessage(m) as SipResponse));
    await new Promise<void>((r) => raw.bind(0, '127.0.0.1', () => r()));
    const p = raw.address().port;
    const send = (lines: string[]) =>
      raw.send([...lines, 'Content-Length: 0', '', ''].join('\r\n'), far.port, '127.0.0.1');
    const request = (method: string, cseq: string, branch: string, toTag = '') => [
      `${method} sip:+15550100@127.0.0.1:${far.port} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${p};branch=z9hG4bK${branch};rport`,
      'Max-Forwards: 70',
      'From: <sip:a@127.0.0.1>;tag=a',
      `To: <sip:+15550100@127.0.0.1:${far.port}>${toTag}`,
      'Call-ID: reinvite',
      `CSeq: ${cseq}`,
      `Contact: <sip:a@127.0.0.1:${p}>`,
    ];
    const oks = (seq: number) => got.filter((r) => r.status === 200 && r.cseq.seq === seq).length;
    send(request('INVITE', '1 INVITE', 'i1'));
    await until(() => oks(1) === 1);
    const tag = `;tag=${got.find((r) => r.status === 200)!.to.tag!}`;
    send(request('ACK', '1 ACK', 'a1', tag));
    await until(() => far.legs[0].acked);
    far.legs[0].onRequest((req, respond) => {
      if (req.method !== 'INVITE') return false;
      respond(200, 'OK', [['Content-Type', 'application/sdp']], SDP);
      return true;
    });

    // A re-INVITE answered 200 by the owner: resent at T1 and 3*T1 until its ACK, then never again.
    send(request('INVITE', '2 INVITE', 'i2', tag));
    await until(() => oks(2) === 1);
    far.clock.advance(500);
    await until(() => oks(2) === 2);
    far.clock.advance(1000);
    await until(() => oks(2) === 3);
    send(request('ACK', '2 ACK', 'a2', tag));
    // The ACK is absorbed by the leg (an OPTIONS sent after it is answered, so it has arrived).
    send(request('OPTIONS', '3 OPTIONS', 'o3', tag));
    await until(() => oks(3) === 1);
    far.clock.advance(40_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(oks(2)).toBe(3);
    expect(far.events).toEqual([]);

    // The next re-INVITE's 2xx never gets its ACK: resent until 64*T1, then the owner is told.
    send(request('INVITE', '4 INVITE', 'i4', tag));
    await until(() => oks(4) === 1);
    far.clock.advance(31_999);
    expect(far.events).toEqual([]);
    far.clock.advance(1);
    expect(far.events).toEqual(['ack-timeout']);
    await until(() => oks(4) >= 8);
    raw.close();
  });

  it('ACKs the 2xx to our re-INVITE, and the far leg stops resending its own 2xx on that ACK', async () => {
    const far = await callee(true);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    near.leg.onRequest((req, respond) => {
      if (req.method !== 'INVITE') return false;
      respond(200, 'OK', [['Content-Type', 'application/sdp']], SDP);
      return true;
    });
    const reinvites = (near.leg as unknown as { reinvites: { waiting: number } }).reinvites;
    const res = await far.legs[0].sendInDialog('INVITE', {
      headers: [['Content-Type', 'application/sdp']],
      body: SDP,
    });
    expect(res.status).toBe(200);
    // The callee's ACK reaches the caller's leg and ends its resending.
    await until(() => reinvites.waiting === 0);
    near.clock.advance(40_000);
    expect(near.events).toEqual(['100', '180', 'final 200']);
    // And the other way round: the callee's leg gets the caller's ACK.
    far.legs[0].onRequest((req, respond) => {
      if (req.method !== 'INVITE') return false;
      respond(200, 'OK', [['Content-Type', 'application/sdp']], SDP);
      return true;
    });
    expect(
      (await near.leg.sendInDialog('INVITE', { headers: [['Content-Type', 'application/sdp']], body: SDP }))
        .status,
    ).toBe(200);
    const farAnswers = (far.legs[0] as unknown as { reinvites: { waiting: number } }).reinvites;
    await until(() => farAnswers.waiting === 0);
    far.clock.advance(40_000);
    expect(far.events).toEqual([]);
    near.leg.bye();
    await until(() => far.events.includes('bye'));
  });

  it('sends in-dialog requests over 1300 bytes over TCP when the peer takes TCP (18.1.1), both legs', async () => {
    const far = await callee(true, { largeRequestsOverTcp: true });
    const near = await caller({ largeRequestsOverTcp: true });
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    const big = 'x'.repeat(1400);
    const seen: string[] = [];
    const record = (side: string) => (req: SipRequest, respond: Respond) => {
      seen.push(`${side} ${req.method} ${req.via[0].transport} ${req.body.length}`);
      respond(200, 'OK');
      return true;
    };
    near.leg.onRequest(record('near'));
    far.legs[0].onRequest(record('far'));
    const info = { headers: [['Content-Type', 'text/plain'] as [string, string]], body: big };
    expect((await far.legs[0].sendInDialog('INFO', info)).status).toBe(200);
    expect((await near.leg.sendInDialog('INFO', info)).status).toBe(200);
    // Small ones stay on UDP.
    expect((await near.leg.sendInDialog('INFO')).status).toBe(200);
    expect(seen).toEqual(['near INFO TCP 1400', 'far INFO TCP 1400', 'far INFO UDP 0']);

    // A caller without TCP: refused at once, so the request goes over UDP after all.
    await (near.stack as unknown as { tcp: { close(): Promise<void> } }).tcp.close();
    const farTcp = (far.stack as unknown as { tcp: { connections: number } }).tcp;
    await until(() => farTcp.connections === 0);
    expect((await far.legs[0].sendInDialog('INFO', info)).status).toBe(200);
    expect(seen.at(-1)).toBe('near INFO UDP 1400');
    expect(far.clock.monotonic()).toBe(0);
  });

  it('keeps large in-dialog requests on UDP without the option', async () => {
    const far = await callee(true);
    const near = await caller();
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => far.legs[0]?.acked === true);
    const seen: string[] = [];
    near.leg.onRequest((req, respond) => {
      seen.push(req.via[0].transport);
      respond(200, 'OK');
      return true;
    });
    const info = { headers: [['Content-Type', 'text/plain'] as [string, string]], body: 'x'.repeat(1400) };
    expect((await far.legs[0].sendInDialog('INFO', info)).status).toBe(200);
    expect(seen).toEqual(['UDP']);
  });
});
