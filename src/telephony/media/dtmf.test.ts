import { describe, expect, it } from 'vitest';
import {
  digitOf,
  DtmfReceiver,
  encodeTelephoneEvent,
  eventOf,
  parseTelephoneEvent,
  planDigit,
  type DigitEnd,
  type DigitEvent,
} from './dtmf.js';

const pkt = (event: number, duration: number, end = false) =>
  encodeTelephoneEvent({ event, end, volume: 10, duration });

function receiver() {
  const digits: DigitEvent[] = [];
  const ends: DigitEnd[] = [];
  const r = new DtmfReceiver(
    8000,
    (d) => digits.push(d),
    (d) => ends.push(d),
  );
  return { r, digits, ends };
}

describe('telephone-event payload', () => {
  it('maps codes 0-15 to digits and back', () => {
    expect([...Array(16).keys()].map(digitOf).join('')).toBe('0123456789*#ABCD');
    expect(digitOf(16)).toBeUndefined();
    expect(eventOf('#')).toBe(11);
    expect(eventOf('d')).toBe(15);
    expect(() => eventOf('x')).toThrow(RangeError);
  });

  it('round-trips the fields', () => {
    const b = encodeTelephoneEvent({ event: 11, end: true, volume: 63, duration: 1234 });
    expect([...b]).toEqual([11, 0x80 | 63, 0x04, 0xd2]);
    expect(parseTelephoneEvent(b)).toEqual({ event: 11, end: true, volume: 63, duration: 1234 });
    expect(parseTelephoneEvent(b.subarray(0, 3))).toBeNull();
  });
});

describe('DtmfReceiver', () => {
  it('yields one digit per press despite continuations and three end packets', () => {
    const { r, digits, ends } = receiver();
    for (const [ts, ev] of [
      [1000, 1],
      [5000, 2],
    ]) {
      r.handle(ts, pkt(ev, 400));
      r.handle(ts, pkt(ev, 800));
      r.handle(ts, pkt(ev, 800, true));
      r.handle(ts, pkt(ev, 800, true));
      r.handle(ts, pkt(ev, 800, true));
    }
    expect(digits.map((d) => d.digit)).toEqual(['1', '2']);
    expect(ends.map((d) => [d.digit, d.durationMs])).toEqual([
      ['1', 100],
      ['2', 100],
    ]);
  });

  it('tells two presses of the same key apart by timestamp', () => {
    const { r, digits } = receiver();
    r.handle(1000, pkt(5, 800, true));
    r.handle(3000, pkt(5, 800, true));
    expect(digits.map((d) => [d.digit, d.timestamp])).toEqual([
      ['5', 1000],
      ['5', 3000],
    ]);
  });

  it('survives a lost start, a late retransmitted start and reordering', () => {
    const { r, digits, ends } = receiver();
    r.handle(100, pkt(9, 800)); // start lost: a continuation comes first
    r.handle(100, pkt(9, 1600, true));
    r.handle(100, pkt(9, 400)); // the start, delayed
    r.handle(2000, pkt(10, 400));
    r.handle(100, pkt(9, 1600, true)); // a late end of the previous press
    r.handle(2000, pkt(10, 800, true));
    expect(digits.map((d) => d.digit)).toEqual(['9', '*']);
    expect(ends.map((d) => d.digit)).toEqual(['9', '*']);
  });

  it('yields a digit from the end packets alone, and once across a timestamp wrap', () => {
    const { r, digits } = receiver();
    r.handle(0xffffff00, pkt(0, 800, true));
    r.handle(0xffffff00, pkt(0, 800, true));
    r.handle(0x00000100, pkt(0, 800, true));
    expect(digits.map((d) => d.timestamp)).toEqual([0xffffff00, 0x100]);
  });

  it('treats a press longer than the 16-bit duration as one digit', () => {
    const { r, digits } = receiver();
    r.handle(0, pkt(3, 0xffff));
    r.handle(0xffff, pkt(3, 400));
    r.handle(0xffff, pkt(3, 800, true));
    expect(digits).toHaveLength(1);
  });

  it('ignores events that are not digits', () => {
    const { r, digits } = receiver();
    expect(r.handle(0, pkt(32, 800))).toBeNull();
    expect(digits).toEqual([]);
  });
});

describe('planDigit', () => {
  it('lays out start, continuations every 50 ms and three end packets', () => {
    const plan = planDigit('#', { clockRate: 8000, durationMs: 160 });
    expect(plan.map((p) => [p.atMs, p.marker, parseTelephoneEvent(p.payload)])).toEqual([
      [0, true, { event: 11, end: false, volume: 10, duration: 400 }],
      [50, false, { event: 11, end: false, volume: 10, duration: 800 }],
      [100, false, { event: 11, end: false, volume: 10, duration: 1200 }],
      [150, false, { event: 11, end: false, volume: 10, duration: 1280 }],
      [160, false, { event: 11, end: true, volume: 10, duration: 1280 }],
      [180, false, { event: 11, end: true, volume: 10, duration: 1280 }],
      [200, false, { event: 11, end: true, volume: 10, duration: 1280 }],
    ]);
  });

  it('is understood by the receiver as exactly one press', () => {
    const { r, digits, ends } = receiver();
    for (const p of planDigit('7', { clockRate: 8000 })) r.handle(4242, p.payload);
    expect(digits.map((d) => d.digit)).toEqual(['7']);
    expect(ends[0].durationMs).toBe(100);
  });
});
