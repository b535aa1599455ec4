import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { MediaTimeout } from './media-timeout.js';
import { buildReceiverReport } from './rtcp.js';
import { RtpPortAllocator } from './port-allocator.js';
import { serializeRtp } from './rtp-packet.js';
import { RtpSession } from './rtp-session.js';

/** A watchdog over counters the test moves by hand. */
function watched(timeoutMs: number, holdTimeoutMs?: number) {
  const clock = new FakeClock();
  const state = { packets: 0, held: false, fired: 0, firedHeld: 0 };
  const timeout = new MediaTimeout({
    clock,
    timeoutMs,
    ...(holdTimeoutMs !== undefined ? { holdTimeoutMs } : {}),
    activity: () => state.packets,
    held: () => state.held,
    onTimeout: (held) => {
      state.fired++;
      if (held) state.firedHeld++;
    },
  });
  return { clock, state, timeout };
}

describe('MediaTimeout on the fake clock', () => {
  it('fires once at the threshold of silence, not a millisecond before', () => {
    const { clock, state, timeout } = watched(60_000);
    timeout.start();
    clock.advance(59_999);
    expect(state.fired).toBe(0);
    clock.advance(1);
    expect(state.fired).toBe(1);
    expect(timeout.running).toBe(false);
    clock.advance(600_000);
    expect(state.fired).toBe(1);
  });

  it('is reset by every packet: the silence counts from the check that saw the last one', () => {
    const { clock, state, timeout } = watched(60_000);
    timeout.start();
    clock.advance(30_000);
    state.packets++; // a packet between checks: the 31 s check sees it
    clock.advance(500);
    clock.advance(500);
    clock.advance(59_999); // 90.999 s: 59.999 s since the check that saw it
    expect(state.fired).toBe(0);
    for (let t = 0; t < 50; t++) {
      state.packets++; // media keeps flowing: never fires however long
      clock.advance(1_000);
    }
    expect(state.fired).toBe(0);
    // Now 140.999 s; the last packet was seen by the 140 s check: silence ends at 200 s.
    clock.advance(59_000);
    expect(state.fired).toBe(0);
    clock.advance(1);
    expect(state.fired).toBe(1);
  });

  it('does not count while the far end holds the call, and counts from zero after the resume', () => {
    const { clock, state, timeout } = watched(60_000);
    timeout.start();
    clock.advance(40_000);
    state.held = true; // re-INVITE a=sendonly: the held party may send nothing at all
    clock.advance(3_600_000);
    expect(state.fired).toBe(0);
    state.held = false; // resumed at 3640 s, just after the check that last saw the hold
    clock.advance(59_999);
    expect(state.fired).toBe(0);
    clock.advance(1);
    expect(state.fired).toBe(1);
  });

  it('never runs with a timeout of 0 (MEDIA_TIMEOUT_SECONDS=0), and stops when told', () => {
    const off = watched(0);
    off.timeout.start();
    expect(off.clock.pending()).toBe(0);
    const on = watched(5_000);
    on.timeout.start();
    on.clock.advance(4_000);
    on.timeout.stop();
    on.clock.advance(60_000);
    expect(on.state.fired).toBe(0);
    expect(on.clock.pending()).toBe(0);
  });
});

describe('MediaTimeout while the far end holds the call (MEDIA_HOLD_TIMEOUT_SECONDS)', () => {
  it('ends a held call silent for the hold bound, not a millisecond before, and says it was held', () => {
    const { clock, state, timeout } = watched(60_000, 1_800_000);
    timeout.start();
    clock.advance(30_500);
    state.held = true; // re-INVITE a=inactive at 30.5 s, then nothing at all: the party died
    // The hold counts from the last check before it (30 s): far past the 60 s media timeout...
    clock.advance(1_799_499); // 1830 s - 1 ms
    expect(state.fired).toBe(0);
    clock.advance(1); // ...and ends 1800 s after it
    expect(state).toMatchObject({ fired: 1, firedHeld: 1 });
    expect(timeout.running).toBe(false);
  });

  it('counts RTCP (or any packet) during the hold as life, and a resume brings the media bound back', () => {
    const { clock, state, timeout } = watched(60_000, 300_000);
    timeout.start();
    state.held = true;
    for (let t = 0; t < 20; t++) {
      clock.advance(5_000);
      state.packets++; // RTCP every 5 s while held: an hour would be fine
    }
    clock.advance(299_000); // the last report was seen at the 100 s check: 399 s
    expect(state.fired).toBe(0);
    clock.advance(500);
    state.held = false; // resumed at 399.5 s; the hold's silence is not carried over
    clock.advance(500); // 400 s: this check sees the resume, counts from the 399 s check
    clock.advance(58_999); // 458.999 s
    expect(state.fired).toBe(0);
    clock.advance(1); // 459 s: 60 s after the last check that saw the hold
    expect(state).toMatchObject({ fired: 1, firedHeld: 0 });
  });

  it('does not carry the silence before a hold into it: the hold bound starts at the hold', () => {
    const { clock, state, timeout } = watched(60_000, 100_000);
    timeout.start();
    clock.advance(59_000); // 59 s of silence: one more second would end the call
    state.held = true;
    clock.advance(1_000); // 60 s: the check sees the hold (counts from the 59 s check)
    clock.advance(98_999);
    expect(state.fired).toBe(0);
    clock.advance(1); // 159 s = 59 s + 100 s
    expect(state).toMatchObject({ fired: 1, firedHeld: 1 });
  });

  it('runs with only the hold bound (MEDIA_TIMEOUT_SECONDS=0): an active call is never ended', () => {
    const { clock, state, timeout } = watched(0, 10_000);
    timeout.start();
    clock.advance(3_600_000);
    expect(state.fired).toBe(0);
    state.held = true; // just after the 3600 s check: the hold counts from it
    clock.advance(9_999);
    expect(state.fired).toBe(0);
    clock.advance(1);
    expect(state).toMatchObject({ fired: 1, firedHeld: 1 });
  });

  it('checks often enough for a hold bound shorter than a second', () => {
    const { clock, state, timeout } = watched(0, 200);
    state.held = true;
    timeout.start();
    clock.advance(199);
    expect(state.fired).toBe(0);
    clock.advance(1);
    expect(state.firedHeld).toBe(1);
  });
});

const HOST = '127.0.0.1';
const ports = new RtpPortAllocator(44000 + (process.pid % 50) * 20, 44019 + (process.pid % 50) * 20);
const open: RtpSession[] = [];
const sockets: dgram.Socket[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const s of sockets.splice(0)) s.close();
});

/** Lets the event loop deliver datagrams: turns of the loop, not time, until `done` holds. */
async function settle(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setImmediate(r));
}

describe('RtpSession.watchMedia over loopback UDP', () => {
  it('is kept alive by real RTP, suspended by a hold (SDP direction), and fires after the silence', async () => {
    const clock = new FakeClock();
    const s = new RtpSession({ clock, ports, host: HOST, codec: new G711Codec('ulaw') });
    open.push(s);
    const port = await s.bind();
    const peer = dgram.createSocket('udp4');
    sockets.push(peer);
    await new Promise<void>((r) => peer.bind(0, HOST, () => r()));
    s.setRemote({ address: HOST, port: peer.address().port });
    s.start();
    let fired = 0;
    s.watchMedia({ timeoutMs: 10_000 }, () => fired++);
    let seq = 0;
    const sendRtp = async () => {
      const before = s.counters.rtpIn;
      seq++;
      const header = { payloadType: 0, sequenceNumber: seq, timestamp: seq * 160, ssrc: 0x1234 };
      const packet = serializeRtp(header, Buffer.alloc(160, 0xff));
      peer.send(packet, port, HOST);
      await settle(() => s.counters.rtpIn > before);
      expect(s.counters.rtpIn).toBe(before + 1);
    };
    // RTP every 9 s keeps a 10 s timeout from firing.
    for (let i = 0; i < 5; i++) {
      clock.advance(9_000);
      await sendRtp();
    }
    expect(fired).toBe(0);
    // The far end holds the call (our answer: recvonly) and goes quiet for a long time.
    s.setDirection('recvonly');
    clock.advance(120_000);
    expect(fired).toBe(0);
    s.setDirection('sendrecv');
    clock.advance(9_999);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
  });

  it("ends a held call on the hold bound, kept alive meanwhile by the held party's real RTCP", async () => {
    const clock = new FakeClock();
    const s = new RtpSession({ clock, ports, host: HOST, codec: new G711Codec('ulaw') });
    open.push(s);
    const port = await s.bind();
    const peer = dgram.createSocket('udp4');
    sockets.push(peer);
    await new Promise<void>((r) => peer.bind(0, HOST, () => r()));
    s.setRemote({ address: HOST, port: peer.address().port });
    s.start();
    const fired: boolean[] = [];
    s.watchMedia({ timeoutMs: 10_000, holdTimeoutMs: 60_000 }, (held) => fired.push(held));
    s.setDirection('inactive'); // the far end holds the call: no RTP, only RTCP
    const sendRtcp = async () => {
      const before = s.counters.rtcpIn;
      peer.send(buildReceiverReport(0x1234), port + 1, HOST);
      await settle(() => s.counters.rtcpIn > before);
      expect(s.counters.rtcpIn).toBe(before + 1);
    };
    for (let i = 0; i < 12; i++) {
      clock.advance(5_000); // an RTCP report every 5 s: a minute of hold, far past 10 s
      await sendRtcp();
    }
    expect(fired).toEqual([]);
    // The held party dies: its RTCP stops. The last report (sent at 60 s) was seen by the 61 s
    // check: the hold bound, not the media bound, ends the call at 121 s.
    clock.advance(60_999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([true]);
  });
});
