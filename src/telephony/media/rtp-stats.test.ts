import { describe, expect, it } from 'vitest';
import { ReceptionStats, seqDiff, TimestampUnwrapper, tsDiff } from './rtp-stats.js';

function feed(stats: ReceptionStats, seqs: number[]): boolean[] {
  return seqs.map((s) => stats.updateSeq(s & 0xffff));
}

describe('sequence numbers (RFC 3550 A.1)', () => {
  it('holds a new source on probation until two packets are in sequence', () => {
    const s = new ReceptionStats(8000);
    expect(feed(s, [100, 200, 201])).toEqual([false, false, true]);
    expect(s.valid).toBe(true);
    expect(s.received).toBe(1);
  });

  it('counts cycles across the 16-bit wrap and extends sequence numbers', () => {
    const s = new ReceptionStats(8000);
    const seqs = Array.from({ length: 20 }, (_, i) => 65530 + i);
    feed(s, seqs);
    expect(s.extendedMax).toBe(65530 + 19);
    expect(s.extend(65535)).toBe(65535);
    expect(s.extend(2)).toBe(65538);
    expect(s.expected).toBe(19);
    expect(s.cumulativeLost).toBe(0);
  });

  it('computes loss and fraction lost per interval (A.3)', () => {
    const s = new ReceptionStats(8000);
    const seqs = [];
    for (let i = 0; i < 100; i++) if (i % 10 !== 5) seqs.push(1000 + i);
    feed(s, seqs);
    const r = s.takeReport();
    expect(r.cumulativeLost).toBe(10);
    // 10 of the 99 expected since the second packet (probation) are missing.
    expect(r.fractionLost).toBe(Math.floor((10 * 256) / 99));
    feed(s, [1100, 1101, 1102, 1103]);
    expect(s.takeReport().fractionLost).toBe(0);
  });

  it('restarts after two sequential packets far away, ignores one stray', () => {
    const s = new ReceptionStats(8000);
    feed(s, [1, 2, 3, 4]);
    expect(s.updateSeq(30000)).toBe(false);
    expect(s.updateSeq(5)).toBe(true);
    expect(feed(s, [40000, 40001])).toEqual([false, true]);
    expect(s.restarts).toBe(1);
    expect(s.extendedMax).toBe(40001);
  });

  it('signed distances survive wrap-around', () => {
    expect(seqDiff(2, 65534)).toBe(4);
    expect(seqDiff(65534, 2)).toBe(-4);
    expect(tsDiff(5, 0xfffffffb)).toBe(10);
    const u = new TimestampUnwrapper();
    expect([0xffffff00, 0xffffffa0, 0x40, 0xffffffc0].map((t) => u.unwrap(t))).toEqual([
      0xffffff00, 0xffffffa0, 0x100000040, 0xffffffc0,
    ]);
  });
});

describe('interarrival jitter (RFC 3550 A.8)', () => {
  it('is zero for perfectly paced packets', () => {
    const s = new ReceptionStats(8000);
    for (let i = 0; i < 50; i++) s.updateJitter((i * 160 + 0xfffff000) >>> 0, 1000 + i * 20);
    expect(s.jitter).toBe(0);
  });

  it('converges to the mean absolute transit difference', () => {
    const s = new ReceptionStats(8000);
    // Arrivals alternate 0 and +10 ms late: |D| is always 80 units.
    for (let i = 0; i < 500; i++) s.updateJitter(i * 160, i * 20 + (i % 2) * 10);
    expect(s.jitter).toBeGreaterThanOrEqual(79);
    expect(s.jitter).toBeLessThanOrEqual(80);
    expect(s.jitterMs).toBeCloseTo(10, 0);
  });
});
