import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { OpusCodec } from '../../audio/codecs/opus.js';
import type { DigitEnd, DigitEvent } from './dtmf.js';
import { RtpPortAllocator } from './port-allocator.js';
import type { RemoteReport } from './rtcp-reporter.js';
import { serializeRtp } from './rtp-packet.js';
import { RtpSession, type RtpSessionOptions } from './rtp-session.js';
import { SharedPacer } from './shared-pacer.js';

const HOST = '127.0.0.1';
// A range of its own, away from the default, so parallel suites do not collide.
const ports = new RtpPortAllocator(41000 + (process.pid % 50) * 40, 41039 + (process.pid % 50) * 40);
const open: RtpSession[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Lets the event loop deliver datagrams: turns of the loop, not time, until `done` holds. */
async function settle(done: () => boolean = () => false, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
}

/** Advances the fake clock in 10 ms steps, letting packets cross the loopback between steps. */
async function run(clock: FakeClock, ms: number, moving: () => number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    const before = moving();
    clock.advance(10);
    await settle(() => moving() > before, 20);
  }
  await settle();
}

function tone(n: number, freq = 1000, rate = 16000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / rate)),
  );
}

let seed = 1;
const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;

function session(clock: FakeClock, extra: Partial<RtpSessionOptions> = {}) {
  const digits: DigitEvent[] = [];
  const audio: { pcm: Int16Array; concealed: boolean }[] = [];
  const reports: RemoteReport[] = [];
  const s = new RtpSession({
    clock,
    ports,
    host: HOST,
    codec: new G711Codec('ulaw'),
    random,
    onDigit: (d) => digits.push(d),
    onAudio: (pcm, info) => audio.push({ pcm, concealed: info.concealed }),
    onRemoteReport: (r) => reports.push(r),
    ...extra,
  });
  open.push(s);
  return { s, digits, audio, reports };
}

describe('RtpSession over loopback UDP', () => {
  it('exchanges audio, digits and RTCP between two sessions', async () => {
    const clock = new FakeClock();
    const a = session(clock);
    const b = session(clock);
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    expect(pa % 2).toBe(0);
    expect(pb % 2).toBe(0);
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(16000)); // one second of 1 kHz at the pipeline rate
    const moving = () => a.s.counters.rtpIn + b.s.counters.rtpIn;
    await run(clock, 1000, moving);
    const digitsSent = a.s.sendDigits('42#');
    await run(clock, 1500, moving);
    await digitsSent;
    await run(clock, 9000, moving); // past the first RTCP reports (5 s ± 50%)

    expect(b.digits.map((d) => d.digit).join('')).toBe('42#');
    // Every packet sent arrived (loopback), each way.
    expect(b.s.counters.rtpIn).toBe(a.s.counters.rtpOut);
    expect(a.s.counters.rtpIn).toBe(b.s.counters.rtpOut);
    expect(a.s.counters.rtpOut).toBeGreaterThan(500);
    expect(b.s.receiver.counters.eventPackets).toBeGreaterThanOrEqual(15);
    // Audio came out of B's playout at 16 kHz, and the tone is in it.
    const frames = b.audio.filter((f) => !f.concealed);
    expect(frames.length).toBeGreaterThan(500);
    expect(frames.every((f) => f.pcm.length === 320)).toBe(true);
    const loud = frames.slice(5, 40).map((f) => Math.max(...f.pcm));
    expect(Math.min(...loud)).toBeGreaterThan(7000);
    expect(b.audio.filter((f) => f.concealed)).toHaveLength(0);
    // RTCP both ways: SRs with report blocks, and an RTT: zero on loopback, but the fake clock moves
    // in 10 ms steps while datagrams cross, so each direction may read one step late.
    expect(a.s.counters.rtcpIn).toBeGreaterThan(0);
    expect(b.s.counters.rtcpIn).toBeGreaterThan(0);
    const withRtt = a.reports.find((r) => r.rttMs !== null);
    expect(withRtt?.rttMs).toBeLessThanOrEqual(20);
    expect(a.reports.at(-1)?.cumulativeLost).toBe(0);
    expect(a.s.isLatched && b.s.isLatched).toBe(true);
  });

  it('latches to where packets come from when the SDP address is wrong (NAT)', async () => {
    const clock = new FakeClock();
    // Both on one shared frame timer, as a busy node runs them.
    const pacer = new SharedPacer(clock);
    const a = session(clock, { rtcpMux: true, pacer });
    const b = session(clock, { rtcpMux: true, pacer });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    // B's SDP view of A is a private address nobody listens on.
    b.s.setRemote({ address: '127.0.0.2', port: 9 });
    a.s.start();
    b.s.start();
    const moving = () => a.s.counters.rtpIn + b.s.counters.rtpIn;
    await run(clock, 400, moving);
    expect(b.s.destination).toEqual({ address: HOST, port: pa });
    expect(pacer.size).toBe(4); // two senders, two playouts
    expect(a.s.counters.rtpIn).toBeGreaterThan(10);
    expect(a.s.counters.rtpIn).toBeGreaterThanOrEqual(b.s.counters.rtpOut - 1);
  });

  it('never sends to port 0: a refused stream in the SDP, or a source that cannot be answered', async () => {
    const clock = new FakeClock();
    const a = session(clock);
    await a.s.bind();
    a.s.setRemote({ address: HOST, port: 0 });
    a.s.start();
    a.s.enqueue(tone(3200));
    // dgram throws ERR_SOCKET_BAD_PORT for port 0; inside the pacer's timer that would kill the process.
    expect(() => clock.advance(200)).not.toThrow();
    expect(a.s.counters.rtpOut).toBe(0);
    // A packet whose source port is 0 (sent from a raw socket, like sipp's pcap play) is not latched to.
    const packet = serializeRtp(
      { payloadType: 0, sequenceNumber: 1, timestamp: 160, ssrc: 42 },
      Buffer.alloc(160, 0xff),
    );
    const deliver = (a.s as unknown as { onDatagram(m: Buffer, r: dgram.RemoteInfo, rtcp: boolean): void })
      .onDatagram;
    deliver.call(a.s, packet, { address: HOST, port: 0, family: 'IPv4', size: packet.length }, false);
    expect(a.s.isLatched).toBe(false);
    expect(() => clock.advance(200)).not.toThrow();
    expect(a.s.counters.rtpOut).toBe(0);
  });

  it('ignores a stray source until it sends several packets in a row', async () => {
    const clock = new FakeClock();
    const a = session(clock);
    const b = session(clock, { relatchAfter: 5 });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    a.s.start();
    b.s.start();
    const moving = () => b.s.counters.rtpIn + b.s.counters.stray;
    await run(clock, 200, moving);
    expect(b.s.destination?.port).toBe(pa);

    const intruder = dgram.createSocket('udp4');
    await new Promise<void>((r) => intruder.bind(0, HOST, r));
    const send = (seq: number) =>
      new Promise<void>((r) =>
        intruder.send(
          serializeRtp(
            { payloadType: 0, sequenceNumber: seq, timestamp: seq * 160, ssrc: 99 },
            Buffer.alloc(160, 0xff),
          ),
          pb,
          HOST,
          () => r(),
        ),
      );
    for (let i = 0; i < 3; i++) await send(i);
    await settle(() => b.s.counters.stray >= 3);
    expect(b.s.counters.stray).toBe(3);
    expect(b.s.destination?.port).toBe(pa);
    // A genuine move (the phone's NAT rebinding): five in a row win, as nothing from A interleaves.
    a.s.sender.stop();
    for (let i = 3; i < 8; i++) await send(i);
    await settle(() => b.s.destination?.port !== pa);
    expect(b.s.destination?.port).toBe(intruder.address().port);
    intruder.close();
  });

  it('in sdp-address mode, waits for the SDP address before latching at once', async () => {
    const clock = new FakeClock();
    const a = session(clock);
    const b = session(clock, { latch: 'sdp-address', relatchAfter: 1000 });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: '127.0.0.2', port: pa });
    a.s.start();
    b.s.start();
    await run(clock, 200, () => b.s.counters.stray);
    expect(b.s.isLatched).toBe(false);
    expect(b.s.counters.stray).toBeGreaterThan(5);
    b.s.setRemote({ address: HOST, port: pa });
    await run(clock, 100, () => b.s.counters.rtpIn);
    expect(b.s.isLatched).toBe(true);
  });

  it('carries Opus at 48 kHz to and from the 16 kHz pipeline', async () => {
    const clock = new FakeClock();
    const a = session(clock, { codec: new OpusCodec() });
    const b = session(clock, { codec: new OpusCodec() });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(16000, 440));
    await run(clock, 600, () => b.s.counters.rtpIn);
    const frames = b.audio.filter((f) => !f.concealed);
    expect(frames.length).toBeGreaterThan(20);
    expect(frames[0].pcm.length).toBe(320);
    const peak = Math.max(...frames.slice(10, 25).flatMap((f) => [...f.pcm]));
    expect(peak).toBeGreaterThan(6000);
    expect(peak).toBeLessThan(10000);
  });

  it('switches both directions to another codec mid-call (re-INVITE)', async () => {
    const clock = new FakeClock();
    const a = session(clock);
    const b = session(clock);
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    a.s.start();
    b.s.start();
    a.s.enqueue(tone(32000, 440));
    await run(clock, 300, () => b.s.counters.rtpIn);
    const before = b.audio.length;
    a.s.setCodec(new OpusCodec());
    b.s.setCodec(new OpusCodec());
    await run(clock, 400, () => b.s.counters.rtpIn);
    const after = b.audio.slice(before + 8).filter((f) => !f.concealed);
    expect(after.length).toBeGreaterThan(8);
    expect(Math.max(...after.flatMap((f) => [...f.pcm]))).toBeGreaterThan(6000);
    expect(b.s.receiver.counters.unknownPayload).toBeLessThanOrEqual(1);
  });

  it('takes the telephone-event type of the new format: Opus with 48 kHz events both ways', async () => {
    const clock = new FakeClock();
    const ends: DigitEnd[] = [];
    const a = session(clock, { telephoneEventPayloadType: 101 });
    const b = session(clock, { telephoneEventPayloadType: 101, onDigitEnd: (d) => ends.push(d) });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    // The answer arrives before media starts (an outbound call's 2xx, a late offer's ACK).
    for (const s of [a.s, b.s]) {
      s.setCodec(new OpusCodec());
      s.setTelephoneEventPayloadType(110);
    }
    a.s.start();
    b.s.start();
    const sent = a.s.sendDigits('47', { durationMs: 160 });
    await run(clock, 1200, () => b.s.counters.rtpIn);
    await sent;
    expect(b.digits.map((d) => d.digit)).toEqual(['4', '7']);
    // Read at 48 kHz: a press of 160 ms (not six times that, as 8 kHz units would make it).
    expect(ends.map((d) => d.digit)).toEqual(['4', '7']);
    for (const end of ends) expect(end.durationMs).toBeGreaterThanOrEqual(150);
    for (const end of ends) expect(end.durationMs).toBeLessThanOrEqual(250);
    expect(b.s.receiver.counters.unknownPayload).toBe(0);
  });

  it('follows a re-INVITE to a new address without latching back to the old one', async () => {
    const clock = new FakeClock();
    const latches: number[] = [];
    const a = session(clock);
    const b = session(clock, { relatchAfter: 5, onLatch: (src) => latches.push(src.port) });
    const c = session(clock);
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    const pc = await c.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    c.s.setRemote({ address: HOST, port: pb });
    a.s.start();
    b.s.start();
    await run(clock, 100, () => b.s.counters.rtpIn);
    expect(latches).toEqual([pa]);
    // The call moves to C (say, another media server) while A still sends a few packets.
    b.s.setRemote({ address: HOST, port: pc });
    expect(b.s.destination?.port).toBe(pc);
    await run(clock, 60, () => b.s.counters.stray);
    expect(b.s.isLatched).toBe(false);
    expect(b.s.counters.stray).toBeGreaterThanOrEqual(2);
    a.s.sender.stop();
    c.s.start();
    await run(clock, 200, () => b.s.counters.rtpIn + c.s.counters.rtpIn);
    // C's packets come from the new SDP address itself and latch at once.
    expect(latches).toEqual([pa, pc]);
    expect(c.s.counters.rtpIn).toBeGreaterThan(5);
  });

  it('counts garbage and keeps working: random datagrams on both ports', async () => {
    const clock = new FakeClock();
    const errors: Error[] = [];
    const b = session(clock, { onError: (e) => errors.push(e) });
    const pb = await b.s.bind();
    b.s.start();
    const junk = dgram.createSocket('udp4');
    await new Promise<void>((r) => junk.bind(0, HOST, r));
    let x = 7;
    const byte = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff;
    for (let i = 0; i < 300; i++) {
      const len = byte() % 80;
      const msg = Buffer.from(Array.from({ length: len }, byte));
      if (i % 3 === 0 && len > 1) msg[0] = 0x80 | (msg[0] & 0x3f); // looks like version 2
      await new Promise<void>((r) => junk.send(msg, i % 2 ? pb + 1 : pb, HOST, () => r()));
    }
    await settle(() => b.s.counters.malformed + b.s.counters.rtpIn + b.s.counters.rtcpIn >= 280, 2000);
    clock.advance(200);
    junk.close();
    expect(b.s.counters.malformed).toBeGreaterThan(150);
    expect(errors).toEqual([]);
  });

  it('frees its port on close and sends an RTCP BYE', async () => {
    const clock = new FakeClock();
    let bye: string | undefined;
    const a = session(clock);
    const b = session(clock, { onBye: (r) => (bye = r ?? '') });
    const pa = await a.s.bind();
    const pb = await b.s.bind();
    a.s.setRemote({ address: HOST, port: pb });
    b.s.setRemote({ address: HOST, port: pa });
    const before = ports.inUse;
    await a.s.close('hangup');
    await settle(() => bye !== undefined);
    expect(bye).toBe('hangup');
    expect(ports.inUse).toBe(before - 1);
  });
});
