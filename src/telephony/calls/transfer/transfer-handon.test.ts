// Hand-on (transfer-handon.ts) on loopback with one FakeClock for SIP timers and media pacing, as
// transfer-warm.test.ts (both on testing/loopback.ts): our caller session bridged by a warm
// transfer to a "human" SipStack's UasLeg; the human REFERs the caller to a "new party" (a second
// SipStack) that answers, is busy or rings. Phones count loud frames, so the tests see which party
// the caller's audio reaches.
// The rules (which REFER is taken, the failure statuses) are in transfer-handon-rules.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { G711Codec } from '../../../audio/codecs/g711.js';
import { RtpPortAllocator } from '../../media/port-allocator.js';
import { RtpSession } from '../../media/rtp-session.js';
import type { MediaBridge } from '../../media/bridge.js';
import { getHeader } from '../../sip/message/access.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipRequest, SipResponse } from '../../sip/message/types.js';
import { parseUri } from '../../sip/message/uri.js';
import { SipStack } from '../../sip/stack.js';
import {
  HOST,
  join,
  loopback,
  party as answeringParty,
  phone,
  run,
  tone,
  within,
  type PartyMode,
  type Phone,
} from '../testing/loopback.js';
import type { TransferResult } from './transfer-context.js';
import { NOTIFY_GRACE_MS } from './transfer-handon.js';
import type { DialTarget } from './transfer-route.js';
import { rtpCaller, warmTransfer, type WarmTransferRequest } from './transfer-warm.js';

const loop = loopback(
  new RtpPortAllocator(47000 + (process.pid % 50) * 40, 47039 + (process.pid % 50) * 40),
  7,
);
afterEach(() => loop.close());

/** A party (testing/loopback.ts) that also collects the NOTIFYs of a REFER it sends and answers them 200. */
async function party(clock: FakeClock, mode: PartyMode) {
  const p = {
    notifies: [] as SipRequest[],
    /** How many NOTIFYs it answers; later ones are left unanswered (a referrer gone quiet). */
    answers: Infinity,
  };
  const answering = await answeringParty(clock, loop, mode, {
    user: 'p',
    onLeg: (leg) =>
      leg.onRequest((r, respond) => {
        if (r.method !== 'NOTIFY') return false;
        p.notifies.push(r);
        if (p.notifies.length <= p.answers) respond(200, 'OK');
        return true;
      }),
  });
  return Object.assign(p, answering);
}

async function setup(next: PartyMode) {
  const clock = new FakeClock();
  const callerPhone = phone(clock, loop);
  const callerRtp = new RtpSession({
    clock,
    ports: loop.ports,
    host: HOST,
    codec: new G711Codec('ulaw'),
    random: loop.random,
  });
  loop.sessions.push(callerRtp);
  await join(callerPhone.s, callerRtp);
  const human = await party(clock, 'answer');
  const newParty = await party(clock, next);
  const ours = new SipStack({ clock, host: HOST, port: 0 });
  loop.stacks.push(ours);
  const oport = (await ours.listen()).udp!;
  const bridges: MediaBridge[] = [];
  const gone = new AbortController();
  // tel:+15550188 is the new party (the trunk's role in transfer-route.ts); nothing else routes.
  const route = (uri: string): DialTarget | null =>
    uri === 'tel:+15550188'
      ? {
          target: {
            uri: `sip:+15550188@${HOST}:${newParty.port}`,
            host: HOST,
            port: newParty.port,
            transport: 'udp',
          },
          auth: { username: 'acct', password: 'pw' },
        }
      : null;
  let id = 0;
  const request: WarmTransferRequest = {
    stack: ours,
    local: { host: HOST, port: oport },
    clock,
    newId: () => `w${++id}`,
    ports: loop.ports,
    target: { uri: `sip:+15550177@${HOST}:${human.port}`, host: HOST, port: human.port, transport: 'udp' },
    auth: { username: 'acct', password: 'pw' },
    from: '+15550100',
    callId: 'call-1',
    ringTimeoutMs: 20_000,
    caller: rtpCaller(callerRtp),
    suspendMedia: () => undefined,
    resumeMedia: () => undefined,
    signal: new AbortController().signal,
    callerGone: gone.signal,
    onBridge: (b) => bridges.push(b),
    referTarget: route,
  };
  let result: TransferResult | undefined;
  void warmTransfer(request).then((r) => (result = r));
  await run(clock, 2000, () => result !== undefined);
  if (result?.status !== 'success') throw new Error(`not bridged: ${JSON.stringify(result)}`);
  let over = false;
  void result.bridged!.then(() => (over = true));
  return { clock, callerPhone, human, newParty, bridges, gone, over: () => over };
}

type World = Awaited<ReturnType<typeof setup>>;

/** The human's REFER; resolves with our answer. */
function refer(t: World, headers: HeaderInit[] = [['Refer-To', '<tel:+1-555-0188>']]): Promise<SipResponse> {
  return t.human.legs[0]!.sendInDialog('REFER', {
    headers: [...headers, ['Referred-By', `<sip:agent@${HOST}>`]],
  });
}

/** Plays a tone at `from` and counts what reaches `to` (loud frames). */
async function reaches(t: World, from: Phone, to: Phone): Promise<number> {
  const before = to.loud();
  from.s.enqueue(tone(8000));
  await run(t.clock, 800);
  return to.loud() - before;
}

const notified = (t: World) =>
  t.human.notifies.map((m) => [
    new TextDecoder().decode(m.body).trim(),
    getHeader(m, 'Subscription-State')?.split(';')[0],
  ]);

describe('hand-on: the bridged party REFERs the caller on', () => {
  it('202, NOTIFY 100, 180 as the new party rings, then 200; the caller is bridged to the new party, the human gets BYE', async () => {
    const t = await setup('answer');
    expect(await reaches(t, t.callerPhone, t.human.phone)).toBeGreaterThan(15);
    const answer = refer(t);
    await run(t.clock, 1000, () => t.human.events.includes('bye'));
    expect((await answer).status).toBe(202);
    // The new party was dialled through the route, with our number as caller ID and timers asked.
    const invite = t.newParty.invites[0]!;
    expect(invite.uri).toEqual(parseUri(`sip:+15550188@${HOST}:${t.newParty.port}`));
    expect(invite.from.uri).toMatchObject({ user: '+15550100' });
    expect(getHeader(invite, 'Session-Expires')).toBe('1800');
    expect(notified(t)).toEqual([
      ['SIP/2.0 100 Trying', 'active'],
      ['SIP/2.0 180 Ringing', 'active'],
      ['SIP/2.0 200 OK', 'terminated'],
    ]);
    const first = t.human.notifies[0]!;
    // The id is the REFER's CSeq number: the human's first request in the dialog.
    expect(getHeader(first, 'Event')).toBe('refer;id=1');
    expect(getHeader(first, 'Content-Type')).toMatch(/^message\/sipfrag/);
    expect(first.contact).toHaveLength(1);
    // The human heard every NOTIFY before our BYE; the old bridge is down, the new one carries.
    expect(t.human.events).toEqual(['bye']);
    expect(t.bridges).toHaveLength(2);
    expect(t.bridges[0]!.running).toBe(false);
    expect(await reaches(t, t.callerPhone, t.newParty.phone)).toBeGreaterThan(15);
    expect(await reaches(t, t.newParty.phone, t.callerPhone)).toBeGreaterThan(15);
    expect(await reaches(t, t.callerPhone, t.human.phone)).toBe(0);
    // The transfer's bridge is over when the new party hangs up, not before.
    expect(t.over()).toBe(false);
    t.newParty.legs[0]!.bye();
    await run(t.clock, 300, t.over);
    expect(t.over()).toBe(true);
    expect(t.bridges[1]!.running).toBe(false);
  });

  it('a referrer that does not answer the final NOTIFY gets our BYE after NOTIFY_GRACE_MS', async () => {
    const t = await setup('answer');
    t.human.answers = 2;
    void refer(t);
    await run(t.clock, 1000, () => t.human.notifies.length === 3);
    const sentAt = t.clock.monotonic();
    expect(t.human.events).toEqual([]);
    await run(t.clock, NOTIFY_GRACE_MS + 500, () => t.human.events.includes('bye'));
    expect(t.human.events).toEqual(['bye']);
    expect(t.clock.monotonic() - sentAt).toBeGreaterThanOrEqual(NOTIFY_GRACE_MS - 20);
  });

  it('the new party busy: NOTIFY 486 (terminated), the bridge with the human stays, no BYE', async () => {
    const t = await setup('busy');
    const answer = refer(t);
    await run(t.clock, 1000, () => t.human.notifies.length === 2);
    expect((await answer).status).toBe(202);
    expect(notified(t)).toEqual([
      ['SIP/2.0 100 Trying', 'active'],
      ['SIP/2.0 486 Busy Here', 'terminated'],
    ]);
    expect(t.human.events).toEqual([]);
    expect(t.bridges).toHaveLength(1);
    expect(t.bridges[0]!.running).toBe(true);
    expect(await reaches(t, t.callerPhone, t.human.phone)).toBeGreaterThan(15);
    expect(t.over()).toBe(false);
  });

  it('no answer within the ring timeout: CANCEL, NOTIFY 480, the bridge stays', async () => {
    const t = await setup('ring');
    void refer(t);
    await run(t.clock, 21_000, () => t.human.notifies.length === 3);
    expect(notified(t)).toEqual([
      ['SIP/2.0 100 Trying', 'active'],
      ['SIP/2.0 180 Ringing', 'active'],
      ['SIP/2.0 480 Temporarily Unavailable', 'terminated'],
    ]);
    expect(t.newParty.events).toEqual(['cancelled']);
    expect(t.bridges[0]!.running).toBe(true);
  });

  it('the human hangs up right after the 202: the caller waits, then gets the new party', async () => {
    const t = await setup('ring');
    void refer(t);
    await run(t.clock, 200, () => t.newParty.invites.length === 1);
    t.human.legs[0]!.bye();
    await run(t.clock, 200);
    expect(t.bridges[0]!.running).toBe(false);
    expect(t.over()).toBe(false);
    expect(await reaches(t, t.callerPhone, t.human.phone)).toBe(0);
    // The new party does not answer in time: now the bridge is over, as after the human's hang-up.
    await run(t.clock, 21_000, t.over);
    expect(t.newParty.events).toEqual(['cancelled']);
    expect(t.over()).toBe(true);
  });

  it('the human hangs up after the 202 and the new party answers: the caller is bridged to it', async () => {
    const t = await setup('answer');
    const answer = refer(t);
    t.human.legs[0]!.bye();
    await run(t.clock, 1000, () => t.bridges.length === 2);
    expect((await answer).status).toBe(202);
    expect(t.bridges[1]!.running).toBe(true);
    expect(await reaches(t, t.callerPhone, t.newParty.phone)).toBeGreaterThan(15);
    expect(t.over()).toBe(false);
  });

  it('the caller hangs up while the new party rings: CANCEL to it, BYE to the human, the bridge is over', async () => {
    const t = await setup('ring');
    void refer(t);
    await run(t.clock, 200, () => t.newParty.invites.length === 1);
    t.gone.abort();
    await run(t.clock, 500, () => t.over() && t.newParty.events.length > 0);
    expect(t.over()).toBe(true);
    expect(t.human.events).toEqual(['bye']);
    expect(t.newParty.events).toEqual(['cancelled']);
  });

  it('refused REFERs change nothing: no Refer-To 400, Replaces 603, nowhere to dial 603, a second one 603', async () => {
    const t = await setup('ring');
    expect((await exchange(t, refer(t, []))).status).toBe(400);
    const replaces = refer(t, [
      ['Refer-To', '<sip:x@example.com?Replaces=a%40b%3Bto-tag%3D1%3Bfrom-tag%3D2>'],
    ]);
    const declined = await exchange(t, replaces);
    expect(declined.status).toBe(603);
    expect(getHeader(declined, 'Warning')).toMatch(/^399 127\.0\.0\.1 ".*Replaces.*"$/);
    expect((await exchange(t, refer(t, [['Refer-To', '<tel:+15550199>']]))).status).toBe(603);
    expect(t.newParty.invites).toHaveLength(0);
    expect((await exchange(t, refer(t))).status).toBe(202);
    expect((await exchange(t, refer(t))).status).toBe(603);
    expect(t.newParty.invites).toHaveLength(1);
    expect(t.bridges[0]!.running).toBe(true);
  });
});

const exchange = (t: World, answer: Promise<SipResponse>): Promise<SipResponse> =>
  within(t.clock, 500, answer, 'no answer to the REFER');
