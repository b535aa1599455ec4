// Warm transfer on loopback, one FakeClock for SIP timers and media pacing: the caller's phone and
// our caller session (as the call host has it), our SipStack dialling a "human" SipStack whose
// UasLeg answers, rings forever or refuses, and a human phone RtpSession. Audio is counted at each
// phone (loud frames, RTP packets) to show the announcement reaches the human only and the bridge
// carries both ways.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import type { TtsProvider } from '../../../providers/tts/tts.types.js';
import { G711Codec } from '../../../audio/codecs/g711.js';
import { RtpPortAllocator } from '../../media/port-allocator.js';
import { RtpSession } from '../../media/rtp-session.js';
import type { MediaBridge } from '../../media/bridge.js';
import { getHeader } from '../../sip/message/access.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipRequest } from '../../sip/message/types.js';
import { SipStack } from '../../sip/stack.js';
import {
  HOST,
  join,
  loopback,
  party,
  phone,
  run,
  tone,
  within,
  type PartyMode,
} from '../testing/loopback.js';
import { RINGBACK_TONES } from '../call-media/ringback.js';
import type { TransferResult } from './transfer-context.js';
import { rtpCaller, warmFailureReason, warmTransfer, type WarmTransferRequest } from './transfer-warm.js';

const loop = loopback(
  new RtpPortAllocator(45000 + (process.pid % 50) * 40, 45039 + (process.pid % 50) * 40),
  11,
);
afterEach(() => loop.close());

/** A TTS provider that "speaks" 600 ms of tone. */
const toneTts: TtsProvider = {
  id: 'fake',
  async *synthesize() {
    yield tone(9600);
  },
};

async function setup(mode: PartyMode, answerHeaders: HeaderInit[] = []) {
  const clock = new FakeClock();
  // The caller's phone and our caller session, joined as the call host has them.
  const callerPhone = phone(clock, loop);
  let ownFrames = 0;
  const callerRtp = new RtpSession({
    clock,
    ports: loop.ports,
    host: HOST,
    codec: new G711Codec('ulaw'),
    random: loop.random,
    telephoneEventPayloadType: 101,
    onAudio: () => ownFrames++,
  });
  loop.sessions.push(callerRtp);
  await join(callerPhone.s, callerRtp);

  // The human: a SIP stack whose UasLeg answers with the human phone's media.
  const human = await party(clock, loop, mode, { user: 'human', answerHeaders });
  const hport = human.port;

  const ours = new SipStack({ clock, host: HOST, port: 0 });
  loop.stacks.push(ours);
  const oport = (await ours.listen()).udp!;
  const calls = { suspend: 0, resume: 0 };
  const gone = new AbortController();
  let bridge: MediaBridge | undefined;
  let id = 0;
  const request = (over: Partial<WarmTransferRequest> = {}): WarmTransferRequest => ({
    stack: ours,
    local: { host: HOST, port: oport },
    clock,
    newId: () => `w${++id}`,
    ports: loop.ports,
    target: { uri: `sip:+15550177@${HOST}:${hport}`, host: HOST, port: hport, transport: 'udp' },
    auth: { username: 'acct', password: 'pw' },
    from: '+15550100',
    callId: 'call-1',
    announcement: 'A caller for you',
    announcer: { tts: toneTts, voice: 'en' },
    caller: rtpCaller(callerRtp),
    suspendMedia: () => calls.suspend++,
    resumeMedia: () => calls.resume++,
    signal: new AbortController().signal,
    callerGone: gone.signal,
    onBridge: (b) => (bridge = b),
    ...over,
  });
  return {
    clock,
    callerPhone,
    humanPhone: human.phone,
    human,
    calls,
    gone,
    request,
    bridge: () => bridge,
    ownFrames: () => ownFrames,
  };
}

const settled = (
  t: Awaited<ReturnType<typeof setup>>,
  p: Promise<TransferResult>,
  ms: number,
): Promise<TransferResult> => within(t.clock, ms, p, 'transfer did not settle');

describe('warmTransfer', () => {
  it('machine detection: a party that talks on (a greeting) is hung up before the announcement, failed machine', async () => {
    const t = await setup('answer');
    // Six seconds of voice from the answer on: more than a person's "Hello?".
    t.humanPhone.s.enqueue(tone(16000 * 6, 440));
    const answered: unknown[] = [];
    const result = await settled(
      t,
      warmTransfer(t.request({ machineDetection: true, onAnswered: (by) => answered.push(by) })),
      10_000,
    );
    expect(result).toEqual({ status: 'failed', reason: 'machine' });
    expect(answered).toEqual(['machine']);
    // The caller's media was never taken: no announcement, no bridge.
    expect(t.calls).toEqual({ suspend: 0, resume: 0 });
    expect(t.bridge()).toBeUndefined();
  });

  it('machine detection: dead air is unknown at the detector limit, then announced and bridged', async () => {
    const t = await setup('answer');
    const answered: unknown[] = [];
    const transfer = warmTransfer(
      t.request({ machineDetection: true, onAnswered: (by) => answered.push(by) }),
    );
    const result = await settled(t, transfer, 10_000);
    expect(result.status).toBe('success');
    expect(answered).toEqual(['unknown']);
    expect(t.calls).toEqual({ suspend: 1, resume: 0 });
    expect(t.bridge()).toBeDefined();
  });

  it('answered: announcement to the human only, then audio both ways until the human hangs up', async () => {
    const t = await setup('answer');
    const result = await settled(t, warmTransfer(t.request()), 5000);
    expect(result.status).toBe('success');
    expect(t.calls).toEqual({ suspend: 1, resume: 0 });
    // The announcement (600 ms of tone) reached the human's phone, and nothing loud the caller's.
    expect(t.humanPhone.loud()).toBeGreaterThanOrEqual(25);
    expect(t.humanPhone.s.counters.rtpIn).toBeGreaterThanOrEqual(30);
    expect(t.callerPhone.loud()).toBe(0);

    // Bridged: the caller's tone reaches the human, then the human's reaches the caller.
    const humanBefore = t.humanPhone.loud();
    t.callerPhone.s.enqueue(tone(8000));
    await run(t.clock, 800);
    expect(t.humanPhone.loud() - humanBefore).toBeGreaterThan(15);
    expect(t.callerPhone.loud()).toBe(0);
    t.humanPhone.s.enqueue(tone(8000, 600));
    await run(t.clock, 800);
    expect(t.callerPhone.loud()).toBeGreaterThan(15);
    const counters = t.bridge()!.counters;
    expect(counters.aToB).toBeGreaterThan(50);
    expect(counters.bToA).toBeGreaterThan(50);
    // Digits cross too.
    const sent = t.callerPhone.s.sendDigits('7');
    await run(t.clock, 400);
    await sent;
    await run(t.clock, 200);
    expect(t.humanPhone.digits).toEqual(['7']);
    // The call host's own callbacks still got the caller's frames (they are suspended there).
    expect(t.ownFrames()).toBeGreaterThan(0);

    // The human hangs up: the bridge is over.
    let over = false;
    void result.bridged!.then(() => (over = true));
    t.human.legs[0]!.bye();
    await run(t.clock, 200, () => over);
    expect(over).toBe(true);
    expect(t.bridge()!.running).toBe(false);
  });

  it('ringing: the caller hears the ringback tone until the caller hangs up, then nothing', async () => {
    const t = await setup('ring');
    let result: TransferResult | undefined;
    void warmTransfer(t.request({ announcement: '', ringing: { tone: RINGBACK_TONES.us } })).then(
      (r) => (result = r),
    );
    await run(t.clock, 1000);
    // ~1 s of 440 + 480 Hz (peaks ~5100) in the caller's PCMU.
    expect(t.callerPhone.loud()).toBeGreaterThan(40);
    t.gone.abort();
    await run(t.clock, 200, () => result !== undefined);
    expect(result).toEqual({ status: 'failed', reason: 'caller_hangup' });
    // The phone's jitter buffer plays out what was in flight; after that, silence, though the
    // cadence (2 s on) would still be sounding.
    await run(t.clock, 200);
    const after = t.callerPhone.loud();
    await run(t.clock, 600);
    expect(t.callerPhone.loud()).toBe(after);
  });

  it("183 with SDP: the caller hears the human's early media; a 200 without SDP bridges on it", async () => {
    const t = await setup('early');
    let result: TransferResult | undefined;
    void warmTransfer(t.request({ announcement: '', ringing: { tone: RINGBACK_TONES.us } })).then(
      (r) => (result = r),
    );
    await run(t.clock, 200);
    // No early packet yet (the human's phone sends silence): our tone plays meanwhile.
    expect(t.callerPhone.loud()).toBeGreaterThan(3);
    const beforeEarly = t.callerPhone.loud();
    // The far end's early media (a 600 Hz announcement) replaces it (loud either way here;
    // test/e2e/calls-ringback.test.ts tells the two apart by frequency).
    t.humanPhone.s.enqueue(tone(16000, 600));
    await run(t.clock, 1000);
    expect(t.callerPhone.loud() - beforeEarly).toBeGreaterThan(40);
    expect(t.humanPhone.loud()).toBe(0); // we send nothing to the human before the answer
    expect(result).toBeUndefined();
    t.human.legs[0]!.answer('');
    await run(t.clock, 300, () => result !== undefined);
    expect(result?.status, result?.reason).toBe('success');
    // Bridged on the 183's SDP: the caller's audio reaches the human.
    t.callerPhone.s.enqueue(tone(8000));
    await run(t.clock, 800);
    expect(t.humanPhone.loud()).toBeGreaterThan(15);
    t.human.legs[0]!.bye();
    await run(t.clock, 200);
  });

  it("answers the human's refreshes and re-INVITEs; the human's INFO digits reach the caller", async () => {
    const t = await setup('answer');
    const result = await settled(t, warmTransfer(t.request({ announcement: '' })), 2000);
    expect(result.status).toBe('success');
    const leg = t.human.legs[0]!;
    const update = leg.sendInDialog('UPDATE', {
      headers: [
        ['Session-Expires', '1800;refresher=uac'],
        ['Supported', 'timer'],
      ],
    });
    await run(t.clock, 100);
    const refreshed = await update;
    expect(refreshed.status).toBe(200);
    expect(getHeader(refreshed, 'Session-Expires')).toBe('1800;refresher=uac');
    // A re-INVITE that moves the human's media: answered with our SDP, media follows.
    const offer = [
      'v=0',
      'o=- 9 2 IN IP4 127.0.0.1',
      's=-',
      'c=IN IP4 127.0.0.1',
      't=0 0',
      `m=audio ${t.humanPhone.s.localPort} RTP/AVP 8 101`,
      'a=rtpmap:8 PCMA/8000',
      'a=rtpmap:101 telephone-event/8000',
      '',
    ].join('\r\n');
    const reinvite = leg.sendInDialog('INVITE', {
      headers: [['Content-Type', 'application/sdp']],
      body: offer,
    });
    await run(t.clock, 100);
    const answer = await reinvite;
    expect(answer.status).toBe(200);
    expect(new TextDecoder().decode(answer.body)).toMatch(/m=audio \d+ RTP\/AVP 8 101/);
    // A digit by SIP INFO from the human reaches the caller as RFC 4733.
    const info = leg.sendInDialog('INFO', {
      headers: [['Content-Type', 'application/dtmf-relay']],
      body: 'Signal=4\r\nDuration=160\r\n',
    });
    await run(t.clock, 600);
    expect((await info).status).toBe(200);
    await run(t.clock, 300);
    expect(t.callerPhone.digits).toEqual(['4']);
  });

  it('the caller hanging up while bridged sends BYE to the human', async () => {
    const t = await setup('answer');
    const result = await settled(t, warmTransfer(t.request({ announcement: '' })), 2000);
    expect(result.status).toBe('success');
    let over = false;
    void result.bridged!.then(() => (over = true));
    t.gone.abort();
    await run(t.clock, 200, () => over && t.human.events.includes('bye'));
    expect(over).toBe(true);
    expect(t.human.events).toEqual(['bye']);
  });

  it('no answer: CANCEL at the ring timeout, failed no_answer, caller media never suspended', async () => {
    const t = await setup('ring');
    const result = await settled(t, warmTransfer(t.request({ ringTimeoutMs: 20_000 })), 25_000);
    expect(result).toEqual({ status: 'failed', reason: 'no_answer' });
    await run(t.clock, 100, () => t.human.events.includes('cancelled'));
    expect(t.human.events).toEqual(['cancelled']);
    expect(t.calls).toEqual({ suspend: 0, resume: 0 });
    // The ring lasted the timeout, not less.
    expect(t.clock.monotonic()).toBeGreaterThanOrEqual(20_000);
  });

  it('busy: failed busy', async () => {
    const t = await setup('busy');
    const result = await settled(t, warmTransfer(t.request()), 2000);
    expect(result).toEqual({ status: 'failed', reason: 'busy' });
  });

  it("carries the trunk carrier's header fields (carrier_a: P-Asserted-Identity) on the human's INVITE", async () => {
    const t = await setup('busy');
    const pai = ['P-Asserted-Identity', '<sip:+15550100@sip.example.com>'] as const;
    const result = await settled(t, warmTransfer(t.request({ carrierHeaders: [pai] })), 2000);
    expect(result).toEqual({ status: 'failed', reason: 'busy' });
    expect(getHeader(t.human.invites[0]!, 'P-Asserted-Identity')).toBe(pai[1]);
    // Without them, none (a generic trunk, or a sip: destination off the trunk).
    const plain = await setup('busy');
    await settled(plain, warmTransfer(plain.request()), 2000);
    expect(getHeader(plain.human.invites[0]!, 'P-Asserted-Identity')).toBeUndefined();
  });

  it('the caller hanging up while the human rings cancels the human leg', async () => {
    const t = await setup('ring');
    const p = warmTransfer(t.request());
    await run(t.clock, 100, () => t.human.invites.length === 1);
    t.gone.abort();
    const result = await settled(t, p, 1000);
    expect(result).toEqual({ status: 'failed', reason: 'caller_hangup' });
    await run(t.clock, 200, () => t.human.events.includes('cancelled'));
    expect(t.human.events).toEqual(['cancelled']);
  });

  it('maps final statuses to reasons', () => {
    expect([408, 480, 487, 486, 600, 603, 404, 484, 403, 500].map(warmFailureReason)).toEqual([
      'no_answer',
      'no_answer',
      'no_answer',
      'busy',
      'busy',
      'declined',
      'invalid_number',
      'invalid_number',
      'trunk_auth_failed',
      'sip_500',
    ]);
  });

  it("meters the announcement's characters; the caller's presses from callerDigits (SIP INFO too) reach the human", async () => {
    const t = await setup('answer');
    const metered: number[] = [];
    let toBridge: ((d: string) => void) | null = null;
    const result = await settled(
      t,
      warmTransfer(
        t.request({
          meterTts: (n) => metered.push(n),
          callerDigits: (l) => {
            toBridge = l;
            return () => (toBridge = null);
          },
        }),
      ),
      5000,
    );
    expect(result.status).toBe('success');
    expect(metered).toEqual(['A caller for you'.length]);
    // A press the call host got by SIP INFO crosses as RFC 4733.
    toBridge!('9');
    await run(t.clock, 600);
    expect(t.humanPhone.digits).toEqual(['9']);
    expect(t.bridge()!.counters.digitsAToB).toBe(1);
    // The caller's RFC 4733 presses come through callerDigits too (the call host's media
    // de-duplicates both paths), so the session tap does not pass them a second time.
    const sent = t.callerPhone.s.sendDigits('3');
    await run(t.clock, 400);
    await sent;
    await run(t.clock, 200);
    expect(t.humanPhone.digits).toEqual(['9']);
    t.human.legs[0]!.bye();
    await run(t.clock, 200);
    expect(toBridge).toBeNull();
  });

  it('asks the human for session timers; as the refresher, UPDATE at half the interval; a 481 to our refresh ends the bridge with BYE', async () => {
    const t = await setup('answer', [
      ['Session-Expires', '90;refresher=uac'],
      ['Require', 'timer'],
    ]);
    const result = await settled(t, warmTransfer(t.request({ announcement: '' })), 2000);
    expect(result.status).toBe('success');
    const asked = t.human.invites[0]!;
    expect(getHeader(asked, 'Supported')).toContain('timer');
    expect(getHeader(asked, 'Session-Expires')).toBe('1800');
    expect(getHeader(asked, 'Min-SE')).toBe('90');
    const leg = t.human.legs[0]!;
    const updates: SipRequest[] = [];
    let status = 200;
    leg.onRequest((req, respond) => {
      if (req.method !== 'UPDATE') return false;
      updates.push(req);
      respond(status, status === 200 ? 'OK' : 'Call/Transaction Does Not Exist', [
        ['Session-Expires', '90;refresher=uac'],
      ]);
      return true;
    });
    let over = false;
    void result.bridged!.then(() => (over = true));
    await run(t.clock, 44_000, undefined, 500);
    expect(updates).toHaveLength(0);
    await run(t.clock, 2_000);
    expect(updates).toHaveLength(1);
    expect(getHeader(updates[0]!, 'Session-Expires')).toBe('90;refresher=uac');
    status = 481;
    await run(t.clock, 46_000, () => over, 500);
    expect(updates).toHaveLength(2);
    expect(over).toBe(true);
    expect(t.bridge()!.running).toBe(false);
    // The 481 ended the dialog (RFC 3261 12.2.1.2), yet a BYE still goes out (RFC 4028 10).
    await run(t.clock, 200, () => t.human.events.includes('bye'));
    expect(t.human.events).toEqual(['bye']);
  });
});
