// SRTP and SRTCP between two contexts on the same keys: rollover across the sequence wrap, late
// and reordered packets inside the replay window, replays and packets older than it dropped,
// wrong keys and tampering dropped without touching state, the 32-bit tag suite, CSRCs and header
// extensions left in the clear.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serializeRtp } from '../rtp-packet.js';
import { ReplayWindow } from './replay-window.js';
import { guessRoc, SrtpContext } from './srtp-context.js';
import { SRTP_SUITES, srtpSuite, type SrtpSuiteName } from './suites.js';

const key = randomBytes(16);
const salt = randomBytes(14);

function pair(name: SrtpSuiteName = 'AES_CM_128_HMAC_SHA1_80', k = key) {
  const suite = SRTP_SUITES[name];
  return { tx: new SrtpContext(suite, k, salt), rx: new SrtpContext(suite, k, salt) };
}

function rtp(seq: number, payload = Buffer.from('twenty bytes of tone'), ssrc = 0x11223344): Buffer {
  return serializeRtp(
    { payloadType: 0, sequenceNumber: seq, timestamp: seq * 160, ssrc, marker: false },
    payload,
  );
}

describe('SRTP', () => {
  it('round-trips, encrypting the payload only', () => {
    const { tx, rx } = pair();
    const plain = rtp(7);
    const sent = tx.protectRtp(plain);
    expect(sent.length).toBe(plain.length + 10);
    expect(sent.subarray(0, 12)).toEqual(plain.subarray(0, 12));
    expect(sent.subarray(12, plain.length)).not.toEqual(plain.subarray(12));
    expect(rx.unprotectRtp(sent)).toEqual(plain);
    expect(rx.counters).toMatchObject({ unprotected: 1, authFailed: 0, replayed: 0 });
  });

  it('carries a 32-bit tag under AES_CM_128_HMAC_SHA1_32, and 256-bit keys under AES_256', () => {
    const short = pair('AES_CM_128_HMAC_SHA1_32');
    const sent = short.tx.protectRtp(rtp(1));
    expect(sent.length).toBe(rtp(1).length + 4);
    expect(short.rx.unprotectRtp(sent)).toEqual(rtp(1));
    const long = pair('AES_256_CM_HMAC_SHA1_80', randomBytes(32));
    expect(long.rx.unprotectRtp(long.tx.protectRtp(rtp(2)))).toEqual(rtp(2));
  });

  it('leaves CSRCs and a header extension in the clear', () => {
    const { tx, rx } = pair();
    const plain = Buffer.concat([
      Buffer.from([0x91, 0x00, 0x00, 0x05]), // V=2, X=1, CC=1
      Buffer.from('0000000011223344' + 'aabbccdd' + 'bede0001' + '10ff0000', 'hex'),
      Buffer.from('payload'),
    ]);
    const sent = tx.protectRtp(plain);
    expect(sent.subarray(0, 24)).toEqual(plain.subarray(0, 24));
    expect(rx.unprotectRtp(sent)).toEqual(plain);
  });

  it('follows the rollover counter across the sequence wrap, with reordering around it', () => {
    const { tx, rx } = pair();
    const seqs = [0xfffd, 0xfffe, 0xffff, 0, 1, 2];
    const sent = seqs.map((s) => tx.protectRtp(rtp(s)));
    // 0xffff arrives after 0 and 1: its counter is still the old one.
    for (const i of [0, 1, 3, 4, 2, 5]) expect(rx.unprotectRtp(sent[i]), `packet ${i}`).toEqual(rtp(seqs[i]));
    // A receiver that guessed the wrong counter would fail authentication from seq 0 on.
    expect(rx.counters).toMatchObject({ unprotected: 6, authFailed: 0 });
    expect(guessRoc(0x1_0002, 0xffff)).toBe(0);
    expect(guessRoc(0xfff0, 0x0003)).toBe(1);
    expect(guessRoc(-1, 0x1234)).toBe(0);
    expect(guessRoc(0x0003, 0xfff0)).toBe(-1);
  });

  it('drops a replayed packet and one older than the window', () => {
    const { tx, rx } = pair();
    const sent = Array.from({ length: 200 }, (_, i) => tx.protectRtp(rtp(1000 + i)));
    const copy = (b: Buffer) => Buffer.from(b);
    expect(rx.unprotectRtp(copy(sent[0]))).not.toBeNull();
    expect(rx.unprotectRtp(copy(sent[0]))).toBeNull();
    for (let i = 2; i < 200; i++) rx.unprotectRtp(copy(sent[i]));
    // Packet 1 never came, but 198 newer ones did: too old to tell, dropped.
    expect(rx.unprotectRtp(copy(sent[1]))).toBeNull();
    expect(rx.unprotectRtp(copy(sent[150]))).toBeNull();
    expect(rx.counters).toMatchObject({ unprotected: 199, replayed: 3, authFailed: 0 });
  });

  it('drops wrong-key, tampered and plain packets without harm to the stream', () => {
    const { tx, rx } = pair();
    const intruder = new SrtpContext(SRTP_SUITES.AES_CM_128_HMAC_SHA1_80, randomBytes(16), salt);
    expect(rx.unprotectRtp(tx.protectRtp(rtp(10)))).not.toBeNull();
    // A forged packet far ahead must not move the window (it would make 11 look too old).
    expect(rx.unprotectRtp(intruder.protectRtp(rtp(10 + 5000)))).toBeNull();
    const tampered = tx.protectRtp(rtp(11));
    tampered[14] ^= 1;
    expect(rx.unprotectRtp(tampered)).toBeNull();
    expect(rx.unprotectRtp(rtp(12))).toBeNull();
    expect(rx.unprotectRtp(Buffer.alloc(8))).toBeNull();
    expect(rx.unprotectRtp(tx.protectRtp(rtp(11)))).toEqual(rtp(11));
    expect(rx.counters).toMatchObject({ unprotected: 2, authFailed: 3, malformed: 1 });
  });

  it('keeps state for a new source only once one of its packets authenticates', () => {
    const { tx, rx } = pair();
    const intruder = new SrtpContext(SRTP_SUITES.AES_CM_128_HMAC_SHA1_80, randomBytes(16), salt);
    // A forged first packet from a new SSRC at a high sequence number, then the real stream low.
    expect(rx.unprotectRtp(intruder.protectRtp(rtp(60000, undefined, 0xabc)))).toBeNull();
    expect(rx.unprotectRtp(tx.protectRtp(rtp(5, undefined, 0xabc)))).not.toBeNull();
  });
});

describe('SRTCP', () => {
  const report = Buffer.from('80c90001deadbeef', 'hex');

  it('round-trips with an increasing index, and drops replays and forgeries', () => {
    const { tx, rx } = pair();
    const first = tx.protectRtcp(report);
    const second = tx.protectRtcp(report);
    expect(first.length).toBe(8 + 4 + 10);
    expect(first.readUInt32BE(8)).toBe(0x80000000);
    expect(second.readUInt32BE(8)).toBe(0x80000001);
    expect(rx.unprotectRtcp(Buffer.from(second))).toEqual(report);
    expect(rx.unprotectRtcp(Buffer.from(first))).toEqual(report);
    expect(rx.unprotectRtcp(Buffer.from(second))).toBeNull();
    const forged = tx.protectRtcp(report);
    forged[forged.length - 1] ^= 0x80;
    expect(rx.unprotectRtcp(forged)).toBeNull();
    expect(rx.counters).toMatchObject({ unprotected: 2, replayed: 1, authFailed: 1 });
  });

  it('carries an 80-bit tag under the 32-bit RTP suite too', () => {
    const { tx, rx } = pair('AES_CM_128_HMAC_SHA1_32');
    const sent = tx.protectRtcp(report);
    expect(sent.length).toBe(8 + 4 + 10);
    expect(rx.unprotectRtcp(sent)).toEqual(report);
  });
});

describe('the replay window and the suite table', () => {
  it('slides: new above the top, seen or too old below it', () => {
    const w = new ReplayWindow();
    expect(w.check(5)).toBe(true);
    w.accept(5);
    expect(w.check(5)).toBe(false);
    expect(w.check(4)).toBe(true);
    w.accept(300);
    expect(w.check(5)).toBe(false);
    expect(w.check(299)).toBe(true);
    expect(w.check(300 - 128)).toBe(false);
    expect(w.check(300 - 127)).toBe(true);
  });

  it('knows the three suites by their SDES names, and nothing else', () => {
    expect(srtpSuite('AES_CM_128_HMAC_SHA1_80')?.rtpTagLength).toBe(10);
    expect(srtpSuite('AES_256_CM_HMAC_SHA1_80')?.keyLength).toBe(32);
    expect(srtpSuite('F8_128_HMAC_SHA1_80')).toBeUndefined();
    expect(srtpSuite('toString')).toBeUndefined();
  });
});
