// RtpSession with SRTP over loopback: audio, digits and SRTCP reports cross both ways on each
// side's own key; plain RTP, a wrong key and a replay reach neither the receiver nor the latch;
// a session waiting for its answer ('pending') sends and hears nothing until keyed; re-keying
// keeps an unchanged side's context.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { RtpPortAllocator } from './port-allocator.js';
import { serializeRtp } from './rtp-packet.js';
import { RtpSession, type RtpSessionOptions } from './rtp-session.js';
import { SrtpContext } from './srtp/srtp-context.js';
import { SRTP_SUITES } from './srtp/suites.js';

const HOST = '127.0.0.1';
const ports = new RtpPortAllocator(43000 + (process.pid % 50) * 40, 43039 + (process.pid % 50) * 40);
const open: RtpSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function settle(done: () => boolean = () => false, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
}

async function run(clock: FakeClock, ms: number, moving: () => number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    const before = moving();
    clock.advance(10);
    await settle(() => moving() > before, 20);
  }
  await settle();
}

const tone = (n: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)));

function session(clock: FakeClock, extra: Partial<RtpSessionOptions> = {}) {
  const audio: Int16Array[] = [];
  const digits: string[] = [];
  const s = new RtpSession({
    clock,
    ports,
    host: HOST,
    codec: new G711Codec('ulaw'),
    onAudio: (pcm, info) => void (info.concealed || audio.push(pcm)),
    onDigit: (d) => digits.push(d.digit),
    ...extra,
  });
  open.push(s);
  return { s, audio, digits };
}

const suite = 'AES_CM_128_HMAC_SHA1_80' as const;
const keyA = randomBytes(30);
const keyB = randomBytes(30);

async function pair(
  clock: FakeClock,
  bSrtp: RtpSessionOptions['srtp'] = { suite, localKey: keyB, remoteKey: keyA },
) {
  const a = session(clock, { srtp: { suite, localKey: keyA, remoteKey: keyB } });
  const b = session(clock, { srtp: bSrtp });
  const pa = await a.s.bind();
  const pb = await b.s.bind();
  a.s.setRemote({ address: HOST, port: pb });
  b.s.setRemote({ address: HOST, port: pa });
  return { a, b, pa, pb };
}

async function sendFrom(packet: Buffer, port: number): Promise<void> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
  await new Promise<void>((r) => socket.send(packet, port, HOST, () => r()));
  socket.close();
}

describe('RtpSession with SRTP', () => {
  it('carries audio, digits and SRTCP both ways, nothing dropped', async () => {
    const clock = new FakeClock();
    const { a, b } = await pair(clock);
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(16000));
    const moving = () => a.s.counters.rtpIn + b.s.counters.rtpIn;
    await run(clock, 1000, moving);
    const digits = a.s.sendDigits('7#');
    await run(clock, 1000, moving);
    await digits;
    await run(clock, 8000, moving);
    expect(b.digits.join('')).toBe('7#');
    expect(b.s.counters.rtpIn).toBe(a.s.counters.rtpOut);
    expect(a.s.counters.rtpIn).toBe(b.s.counters.rtpOut);
    expect(b.s.counters.rtcpIn).toBeGreaterThan(0);
    expect(a.s.counters.rtcpIn).toBeGreaterThan(0);
    expect(Math.max(...b.audio.slice(5, 40).map((f) => Math.max(...f)))).toBeGreaterThan(7000);
    expect(a.s.counters.srtpDropped + b.s.counters.srtpDropped).toBe(0);
    expect(b.s.srtpContexts?.inbound.counters).toMatchObject({
      unprotected: b.s.counters.rtpIn + b.s.counters.rtcpIn,
      authFailed: 0,
      replayed: 0,
    });
  });

  it('drops plain RTP, a wrong key and a replay before they can latch or play', async () => {
    const clock = new FakeClock();
    const { a, b, pb } = await pair(clock);
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(3200));
    await run(clock, 200, () => b.s.counters.rtpIn);
    const latched = b.s.destination;
    const before = { ...b.s.counters };
    const header = { payloadType: 0, sequenceNumber: 9, timestamp: 0, ssrc: 0xbad, marker: false };
    const plain = serializeRtp(header, Buffer.alloc(160, 0x55));
    const intruder = new SrtpContext(SRTP_SUITES[suite], randomBytes(16), randomBytes(14));
    // A packet under A's real key from elsewhere authenticates (it is stray, not SRTP's to drop);
    // the same packet again is a replay.
    const replayed = new SrtpContext(SRTP_SUITES[suite], keyA.subarray(0, 16), keyA.subarray(16)).protectRtp(
      plain,
    );
    for (let i = 0; i < 8; i++) await sendFrom(plain, pb); // more than the relatch run
    await sendFrom(intruder.protectRtp(plain), pb);
    await sendFrom(Buffer.from(replayed), pb);
    await sendFrom(Buffer.from(replayed), pb);
    await settle(() => b.s.counters.srtpDropped >= 10);
    expect(b.s.counters.srtpDropped - before.srtpDropped).toBe(10);
    expect(b.s.counters.stray - before.stray).toBe(1);
    expect(b.s.counters.rtpIn).toBe(before.rtpIn);
    expect(b.s.destination).toEqual(latched);
    expect(b.s.srtpContexts?.inbound.counters).toMatchObject({ authFailed: 9, replayed: 1 });
  });

  it('waits for its keys when pending, and re-keys only the side that changed', async () => {
    const clock = new FakeClock();
    const { a, b } = await pair(clock, 'pending');
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(3200));
    b.s.enqueue(tone(3200));
    await run(clock, 200, () => a.s.counters.srtpDropped + b.s.counters.srtpDropped);
    expect(b.s.counters.rtpOut).toBe(0);
    expect(b.s.counters.rtpIn).toBe(0);
    expect(b.s.counters.srtpDropped).toBeGreaterThan(0);
    b.s.setSrtp({ suite, localKey: keyB, remoteKey: keyA });
    const outbound = b.s.srtpContexts!.outbound;
    a.s.enqueue(tone(3200));
    b.s.enqueue(tone(3200));
    await run(clock, 200, () => a.s.counters.rtpIn + b.s.counters.rtpIn);
    expect(b.s.counters.rtpIn).toBeGreaterThan(5);
    expect(a.s.counters.rtpIn).toBeGreaterThan(5);
    // A re-INVITE with a new key from A: B's inbound context changes, its outbound stays.
    b.s.setSrtp({ suite, localKey: keyB, remoteKey: randomBytes(30) });
    expect(b.s.srtpContexts!.outbound).toBe(outbound);
  });
});
