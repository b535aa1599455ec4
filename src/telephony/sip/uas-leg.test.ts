// An inbound leg answered by UasLeg and called by UacLeg, two stacks on loopback: ringing, the
// answer with its ACK, hang-up either way, the caller's CANCEL, and a 2xx never acknowledged.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { parseMessage } from './message/parse.js';
import type { SipResponse } from './message/types.js';
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

async function callee(answer: boolean) {
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

async function caller() {
  let n = 0;
  const stack = new SipStack({ clock: new FakeClock(), host: '127.0.0.1', port: 0 });
  stacks.push(stack);
  const port = (await stack.listen()).udp!;
  const events: string[] = [];
  const leg = new UacLeg({
    stack,
    localHost: '127.0.0.1',
    localPort: port,
    newId: () => `c${++n}`,
    offer: () => SDP,
  });
  const sink = {
    provisional: (s: number) => events.push(`${s}`),
    final: (s: number) => events.push(`final ${s}`),
    bye: () => events.push('bye'),
    transportError: () => events.push('error'),
  };
  return { leg, events, sink };
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
});
