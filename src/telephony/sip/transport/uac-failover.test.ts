// The failover timer of UacLeg (the stack's failoverMs, SIP_FAILOVER_SECONDS): an INVITE to a
// destination that says nothing at all moves on to the next RFC 3263 destination after the bound,
// not after timer B; the abandoned branch is stopped quietly and, should it wake up, is CANCELled
// (a provisional) or ACKed and ended with BYE (a 2xx) without touching the call. Our side runs on
// a fake clock; the destinations are real sockets on loopback: a dead one that only listens (and
// can be made to answer late) and a live stack.
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { createReply } from '../message/build.js';
import { parseMessage } from '../message/parse.js';
import { serialize } from '../message/serialize.js';
import type { SipRequest } from '../message/types.js';
import { SipStack } from '../stack.js';
import type { Destination } from '../transaction/types.js';
import { UacLeg } from '../uac-leg.js';

const stacks: SipStack[] = [];
const sockets: dgram.Socket[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
  for (const s of sockets.splice(0)) s.close();
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

/** Lets datagrams in flight arrive (the near end's clock is fake; the network is not). */
const drain = () => new Promise((r) => setTimeout(r, 30));

/** A destination that receives everything and answers nothing, unless the test makes it. */
async function deadTarget() {
  const socket = dgram.createSocket('udp4');
  sockets.push(socket);
  const got: SipRequest[] = [];
  let from: dgram.RemoteInfo | undefined;
  socket.on('message', (msg, rinfo) => {
    from = rinfo;
    got.push(parseMessage(msg) as SipRequest);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const port = socket.address().port;
  return {
    port,
    got,
    methods: () => got.map((r) => `${r.cseq.seq} ${r.method}`),
    /** Answers its first INVITE late, as a target that was only slow would. */
    answer(status: number, reason: string) {
      const res = createReply(got[0], status, reason, {
        toTag: 'late',
        headers: [['Contact', `<sip:late@127.0.0.1:${port}>`]],
      });
      socket.send(serialize(res), from!.port, from!.address);
    },
  };
}

/** A live UAS: 100 Trying (the stack's own), then 200 OK to every INVITE. */
async function liveTarget() {
  const invites: SipRequest[] = [];
  let port = 0;
  const stack = new SipStack({
    clock: new FakeClock(),
    host: '127.0.0.1',
    port: 0,
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      invites.push(req);
      tx.respond(
        createReply(req, 200, 'OK', {
          toTag: 'live',
          headers: [['Contact', `<sip:live@127.0.0.1:${port}>`]],
        }),
      );
      return true;
    },
  });
  stacks.push(stack);
  port = (await stack.listen()).udp!;
  return { port, invites };
}

async function nearEnd(destinations: Destination[], failoverMs: number) {
  let n = 0;
  const clock = new FakeClock();
  const stack = new SipStack({ clock, host: '127.0.0.1', port: 0, failoverMs });
  stacks.push(stack);
  const port = (await stack.listen()).udp!;
  const leg = new UacLeg({
    stack,
    localHost: '127.0.0.1',
    localPort: port,
    newId: () => `id${++n}`,
    resolve: () => Promise.resolve(destinations),
  });
  const events: string[] = [];
  const sink = {
    provisional: (s: number) => events.push(`${s}`),
    final: (s: number) => events.push(`final ${s}`),
    bye: () => events.push('bye'),
    transportError: (e?: Error) => events.push(`error: ${e?.message}`),
  };
  const target = {
    uri: 'sip:+15550100@trunk.example.net',
    host: 'trunk.example.net',
    port: null,
    transport: 'udp' as const,
  };
  leg.invite(target, { from: '+15550199', auth: { username: 'a', password: 'p' }, callId: 'c' }, sink);
  return { clock, leg, events, stack };
}

const udp = (port: number): Destination => ({ transport: 'UDP', host: '127.0.0.1', port, reliable: false });

describe('UacLeg failover: a destination that says nothing is left after failoverMs, not timer B', () => {
  it('moves on at the bound, not a millisecond before, and the dead branch stops quietly', async () => {
    const dead = await deadTarget();
    const live = await liveTarget();
    const near = await nearEnd([udp(dead.port), udp(live.port)], 4000);
    await until(() => dead.got.length === 1);
    near.clock.advance(3999); // timer A: retransmissions at 0.5, 1.5 and 3.5 s
    await drain();
    expect(dead.methods()).toEqual(['1 INVITE', '1 INVITE', '1 INVITE', '1 INVITE']);
    expect(live.invites).toHaveLength(0);
    near.clock.advance(1);
    await until(() => near.events.includes('final 200'));
    expect(live.invites).toHaveLength(1);
    // Same INVITE, new branch: a new transaction of the same call attempt.
    expect(live.invites[0].via[0].branch).not.toBe(dead.got[0].via[0].branch);
    expect(live.invites[0].callId).toBe(dead.got[0].callId);
    // The abandoned branch: no more retransmissions, no CANCEL (nothing provisional came), and its
    // timer B (at 32 s) reports nothing to the call.
    near.clock.advance(60_000);
    await drain();
    expect(dead.got).toHaveLength(4);
    expect(near.events).toEqual(['100', 'final 200']);
  });

  it('gives the last destination the whole of timer B', async () => {
    const first = await deadTarget();
    const last = await deadTarget();
    const near = await nearEnd([udp(first.port), udp(last.port)], 4000);
    await until(() => first.got.length === 1);
    near.clock.advance(4000);
    await until(() => last.got.length === 1);
    near.clock.advance(31_999);
    await drain();
    expect(near.events).toEqual([]);
    near.clock.advance(1);
    expect(near.events).toEqual(['error: no final response (timer B)']);
    // 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s: every retransmission of a full timer B.
    expect(last.got).toHaveLength(7);
    expect(first.got).toHaveLength(4);
  });

  it('waits for a destination that answered anything, even 100 Trying: it is alive', async () => {
    const slow = await deadTarget();
    const live = await liveTarget();
    const near = await nearEnd([udp(slow.port), udp(live.port)], 4000);
    await until(() => slow.got.length === 1);
    slow.answer(100, 'Trying');
    await until(() => near.events.includes('100'));
    near.clock.advance(20_000);
    await drain();
    expect(live.invites).toHaveLength(0);
    slow.answer(486, 'Busy Here');
    await until(() => near.events.includes('final 486'));
    expect(near.events).toEqual(['100', 'final 486']);
  });

  it('ACKs a late 2xx of the abandoned branch and ends it with BYE; the call keeps its own dialog', async () => {
    const dead = await deadTarget();
    const live = await liveTarget();
    const near = await nearEnd([udp(dead.port), udp(live.port)], 4000);
    await until(() => dead.got.length === 1);
    near.clock.advance(4000);
    await until(() => near.events.includes('final 200'));
    dead.answer(200, 'OK'); // the first destination wakes up and answers the abandoned INVITE
    await until(() => dead.methods().includes('2 BYE'));
    dead.answer(200, 'OK'); // its retransmission: ACKed again, no second BYE
    await until(() => dead.methods().filter((m) => m === '1 ACK').length === 2);
    await drain();
    expect(dead.methods().slice(4)).toEqual(['1 ACK', '2 BYE', '1 ACK']);
    const bye = dead.got.find((r) => r.method === 'BYE')!;
    expect(bye.to.tag).toBe('late');
    expect(bye.uri).toMatchObject({ host: '127.0.0.1', port: dead.port });
    // The call heard nothing of it: one final, its dialog is the live destination's.
    expect(near.events).toEqual(['100', 'final 200']);
    near.leg.bye();
    await drain();
    expect(dead.methods().filter((m) => m.endsWith('BYE'))).toHaveLength(1);
  });

  it('CANCELs the abandoned branch when a late provisional makes that possible (RFC 3261 9.1)', async () => {
    const dead = await deadTarget();
    const live = await liveTarget();
    const near = await nearEnd([udp(dead.port), udp(live.port)], 4000);
    await until(() => dead.got.length === 1);
    near.clock.advance(4000);
    await until(() => near.events.includes('final 200'));
    dead.answer(180, 'Ringing');
    await until(() => dead.methods().includes('1 CANCEL'));
    const cancel = dead.got.find((r) => r.method === 'CANCEL')!;
    expect(cancel.via[0].branch).toBe(dead.got[0].via[0].branch);
    expect(near.events).toEqual(['100', 'final 200']);
  });

  it('with failoverMs 0, or nothing left to fail over to, only timer B moves on', async () => {
    const dead = await deadTarget();
    const live = await liveTarget();
    const near = await nearEnd([udp(dead.port), udp(live.port)], 0);
    await until(() => dead.got.length === 1);
    near.clock.advance(31_999);
    await drain();
    expect(live.invites).toHaveLength(0);
    near.clock.advance(1);
    await until(() => near.events.includes('final 200'));
    expect(dead.got).toHaveLength(7);
  });
});
