// Test-only support for call tests on loopback with one FakeClock for SIP timers and media pacing
// (transfer-warm.test.ts, transfer-handon.test.ts): the clock run in steps with datagrams crossing
// between them, a tone, phones (RtpSessions counting loud frames and digits) and parties behind
// SipStacks of their own that answer with their phone's media, ring for ever or refuse busy.
import type { FakeClock } from '../../../shared/clock.js';
import { G711Codec } from '../../../audio/codecs/g711.js';
import type { RtpPortAllocator } from '../../media/port-allocator.js';
import { RtpSession } from '../../media/rtp-session.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipRequest } from '../../sip/message/types.js';
import { answerOffer } from '../../sip/sdp/answer.js';
import { SipStack } from '../../sip/stack.js';
import { UasLeg } from '../../sip/uas-leg.js';

export const HOST = '127.0.0.1';

/** A test file's RTP ports and seeded randomness, and the sessions and stacks to close after each test. */
export interface Loopback {
  readonly ports: RtpPortAllocator;
  readonly random: () => number;
  readonly sessions: RtpSession[];
  readonly stacks: SipStack[];
  /** Closes the sessions and stacks made since the last close (for afterEach). */
  close(): Promise<void>;
}

export function loopback(ports: RtpPortAllocator, seed: number): Loopback {
  const sessions: RtpSession[] = [];
  const stacks: SipStack[] = [];
  return {
    ports,
    random: () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff,
    sessions,
    stacks,
    async close() {
      await Promise.all(sessions.splice(0).map((s) => s.close()));
      for (const s of stacks.splice(0)) await s.close();
    },
  };
}

/** Lets pending callbacks and datagrams run, `turns` times at most, until `done`. */
export async function settle(done: () => boolean = () => false, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
}

/** Advances the clock in 10 ms steps, letting datagrams cross between steps, until `stop` or `ms`. */
export async function run(
  clock: FakeClock,
  ms: number,
  stop: () => boolean = () => false,
  step = 10,
): Promise<void> {
  for (let t = 0; t < ms && !stop(); t += step) {
    clock.advance(step);
    await settle(undefined, 5);
  }
  await settle();
}

/** What `p` resolves to, the clock run up to `ms` for it; `failure` is thrown when it does not come. */
export async function within<T>(clock: FakeClock, ms: number, p: Promise<T>, failure: string): Promise<T> {
  let result: T | undefined;
  void p.then((r) => (result = r));
  await run(clock, ms, () => result !== undefined);
  await settle(() => result !== undefined);
  if (result === undefined) throw new Error(failure);
  return result;
}

export function tone(n: number, freq = 1000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / 16000)),
  );
}

/** A phone: an RtpSession counting loud frames and the digits it hears. */
export function phone(clock: FakeClock, on: Loopback) {
  let loud = 0;
  const digits: string[] = [];
  const s = new RtpSession({
    clock,
    ports: on.ports,
    host: HOST,
    codec: new G711Codec('ulaw'),
    random: on.random,
    telephoneEventPayloadType: 101,
    onAudio: (pcm) => {
      if (Math.max(...pcm) > 3000) loud++;
    },
    onDigit: (d) => digits.push(d.digit),
  });
  on.sessions.push(s);
  return { s, loud: () => loud, digits };
}

export type Phone = ReturnType<typeof phone>;

/** Binds two sessions to each other on loopback and starts them (a phone and our session, say). */
export async function join(a: RtpSession, b: RtpSession): Promise<void> {
  const pa = await a.bind();
  const pb = await b.bind();
  a.setRemote({ address: HOST, port: pb });
  b.setRemote({ address: HOST, port: pa });
  a.start();
  b.start();
}

/** `early`: 183 with the answer's SDP and the phone's media started, never a final response. */
export type PartyMode = 'answer' | 'ring' | 'busy' | 'early';

export interface PartyOptions {
  /** The user part of its Contact, and its ids' prefix. */
  readonly user: string;
  /** Extra header fields of its 2xx. */
  readonly answerHeaders?: HeaderInit[];
  /** Told of each leg before it answers, rings or refuses (to take the leg's in-dialog requests). */
  readonly onLeg?: (leg: UasLeg) => void;
}

/**
 * A party behind its own SipStack: each INVITE gets a UasLeg that answers with the party's phone
 * (PCMU), rings for ever, or refuses 486. The invites, legs and what the legs reported are kept.
 */
export async function party(clock: FakeClock, on: Loopback, mode: PartyMode, o: PartyOptions) {
  const ph = phone(clock, on);
  const mediaPort = await ph.s.bind();
  const p = {
    phone: ph,
    port: 0,
    legs: [] as UasLeg[],
    invites: [] as SipRequest[],
    events: [] as string[],
  };
  let n = 0;
  const stack: SipStack = new SipStack({
    clock,
    host: HOST,
    port: 0,
    onRequest: (req, tx): boolean => {
      if (req.method !== 'INVITE') return false;
      p.invites.push(req);
      const legOptions = {
        stack,
        clock,
        contact: `<sip:${o.user}@${HOST}:${p.port}>`,
        newId: () => `${o.user}${++n}`,
        localHost: HOST,
        localPort: p.port,
      };
      const leg = new UasLeg(legOptions, req, tx, {
        cancelled: () => p.events.push('cancelled'),
        bye: () => p.events.push('bye'),
        ackTimeout: () => p.events.push('ack-timeout'),
      });
      p.legs.push(leg);
      o.onLeg?.(leg);
      if (mode === 'busy') return (leg.reject(486, 'Busy Here'), true);
      if (mode !== 'early') leg.ring();
      if (mode === 'ring') return true;
      const answer = answerOffer(
        new TextDecoder().decode(req.body),
        { address: HOST, port: mediaPort, codecs: ['PCMU'] },
        { sessionId: '9', sessionVersion: 1, address: HOST },
      );
      if (!answer.ok) throw new Error(answer.why);
      ph.s.setRemote({ address: answer.audio.remoteAddress, port: answer.audio.remotePort });
      ph.s.start();
      if (mode === 'early') return (leg.ring(183, answer.sdp), true);
      leg.answer(answer.sdp, o.answerHeaders);
      return true;
    },
  });
  on.stacks.push(stack);
  p.port = (await stack.listen()).udp!;
  return p;
}
