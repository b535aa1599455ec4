import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { G711Codec } from '../../audio/codecs/g711.js';
import { MediaTimeout } from './media-timeout.js';
import { RtpPortAllocator } from './port-allocator.js';
import { serializeRtp } from './rtp-packet.js';
import { RtpSession } from './rtp-session.js';

/** A watchdog over counters the test moves by hand. */
function watched(timeoutMs: number) {
  const clock = new FakeClock();
  const state = { packets: 0, held: false, fired: 0 };
  const timeout = new MediaTimeout({
    clock,
    timeoutMs,
    activity: () => state.packets,
    held: () => state.held,
    onTimeout: () => state.fired++,
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
    s.watchMedia(10_000, () => fired++);
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
});
