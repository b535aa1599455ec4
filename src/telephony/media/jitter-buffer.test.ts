import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { JitterBuffer, type JitterBufferOptions, type JitterOutput } from './jitter-buffer.js';

interface Arrival {
  seq: number;
  /** Arrival time in ms since the sender's first packet. */
  at: number;
}

/**
 * Plays a scripted arrival pattern on a fake clock: packet i carries timestamp i*160 and payload
 * [i]; the playout side pulls every 20 ms, offset by 5 ms from the sender's grid.
 */
function run(arrivals: Arrival[], durationMs: number, options: Partial<JitterBufferOptions> = {}) {
  const clock = new FakeClock();
  const jb = new JitterBuffer({ clockRate: 8000, ...options });
  const base = arrivals[0].seq;
  for (const a of arrivals) {
    clock.setTimeout(() => {
      const i = (a.seq - base) & 0xffff;
      jb.push(a.seq & 0xffff, (i * 160) >>> 0, Buffer.from([i & 0xff, i >> 8]), i === 0, clock.monotonic());
    }, a.at);
  }
  const out: JitterOutput[] = [];
  const targets: number[] = [];
  const depths: number[] = [];
  const start = 5;
  let n = 0;
  const tick = () => {
    out.push(jb.pull());
    targets.push(jb.targetDelayMs);
    depths.push(jb.depthFrames);
    n++;
    // Scheduled against absolute time so the test clock never drifts.
    clock.setTimeout(tick, start + n * 20 - clock.monotonic());
  };
  clock.setTimeout(tick, start);
  clock.advance(durationMs);
  return { jb, out, targets, depths };
}

function played(out: JitterOutput[]): (number | 'loss')[] {
  return out.flatMap((o): (number | 'loss')[] =>
    o.kind === 'frame' ? [o.payload[0] | (o.payload[1] << 8)] : o.kind === 'loss' ? ['loss'] : [],
  );
}

const steady = (n: number, first = 1000): Arrival[] =>
  Array.from({ length: n }, (_, i) => ({ seq: first + i, at: i * 20 }));

describe('JitterBuffer', () => {
  it('plays a steady stream in order after the initial delay', () => {
    const { jb, out } = run(steady(100), 2100);
    expect(played(out)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // 40 ms initial delay: playout starts once two frames are held, at the pull of 25 ms.
    expect(out.findIndex((o) => o.kind === 'frame')).toBe(1);
    expect(jb.stats).toMatchObject({ received: 100, played: 100, concealed: 0, late: 0 });
  });

  it('reorders packets and counts duplicates', () => {
    const arrivals = steady(50);
    arrivals[10].at = 205; // after seq 1011
    arrivals[11].at = 200;
    arrivals.push({ seq: 1020, at: 410 });
    const { jb, out } = run(arrivals, 1200);
    expect(played(out)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(jb.stats.duplicates).toBe(1);
  });

  it('signals a loss where a packet never came', () => {
    const arrivals = steady(30).filter((a) => a.seq !== 1007 && a.seq !== 1008);
    const { jb, out } = run(arrivals, 800);
    const seq = played(out);
    expect(seq.slice(5, 11)).toEqual([5, 6, 'loss', 'loss', 9, 10]);
    expect(jb.stats.concealed).toBe(2);
    const loss = out.find((o) => o.kind === 'loss');
    expect(loss).toEqual({ kind: 'loss', seq: 1007 });
  });

  it('drops a late packet, counts it and raises the target', () => {
    const arrivals = steady(60);
    arrivals[20].at = 20 * 20 + 120; // 120 ms late: its turn has passed
    const { jb, out, targets } = run(arrivals, 1400);
    expect(played(out).filter((x) => x === 'loss')).toHaveLength(1);
    expect(jb.stats.late).toBe(1);
    expect(Math.max(...targets)).toBeGreaterThan(targets[0]);
  });

  it('keeps order across the 16-bit sequence wrap', () => {
    const arrivals = steady(100, 65500);
    [arrivals[35].at, arrivals[36].at] = [arrivals[36].at, arrivals[35].at]; // 65535 and 0 swap
    const { jb, out } = run(arrivals, 2200);
    expect(played(out)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(jb.stats.concealed + jb.stats.late + jb.stats.resets).toBe(0);
  });

  it('grows the delay under jitter, then gives latency back when the network calms', () => {
    // Deterministic pseudo-random delays of 0..60 ms for 10 s, then a clean network for 20 s.
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const arrivals = Array.from({ length: 1500 }, (_, i) => ({
      seq: 2000 + i,
      at: i * 20 + (i < 500 ? Math.floor(rand() * 60) : 0),
    }));
    const { jb, out, targets, depths } = run(arrivals, 30_200);
    const jitterPhase = targets.slice(100, 500);
    expect(Math.min(...jitterPhase)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...targets)).toBeLessThanOrEqual(200);
    // Few late packets once adapted: under 2% of the jittery phase.
    expect(jb.stats.late).toBeLessThan(10);
    expect(targets[targets.length - 1]).toBeLessThan(Math.min(...jitterPhase));
    expect(jb.stats.dropped).toBeGreaterThan(0);
    // Held 3 frames in the jittery phase; down to 2 (the hysteresis frame) once calm.
    expect(Math.max(...depths.slice(400, 500))).toBe(3);
    expect(Math.max(...depths.slice(1300, 1450))).toBeLessThanOrEqual(2);
    // Every packet is accounted for.
    const s = jb.stats;
    expect(s.played + s.late + s.dropped).toBe(1500);
    expect(played(out).filter((x) => x !== 'loss')).toHaveLength(s.played);
    // Order is never broken.
    const frames = played(out).filter((x): x is number => x !== 'loss');
    expect(frames).toEqual([...frames].sort((a, b) => a - b));
  });

  it('skips sequence numbers spent on telephone-events without counting a loss', () => {
    const clock = new FakeClock();
    const jb = new JitterBuffer({ clockRate: 8000 });
    const out: JitterOutput[] = [];
    for (let i = 0; i < 20; i++) {
      clock.advance(20);
      if (i >= 8 && i < 12) jb.skip(100 + i);
      else jb.push(100 + i, i * 160, Buffer.from([i]), false, clock.monotonic());
      out.push(jb.pull());
    }
    expect(played(out)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18]);
    expect(jb.stats.concealed).toBe(0);
  });

  it('refills after a pause and restarts on a sequence jump', () => {
    const arrivals = [...steady(20), ...steady(20, 1020).map((a) => ({ ...a, at: a.at + 1000 }))];
    const { jb, out } = run(arrivals, 1600);
    expect(played(out)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // Once in the pause and once at the end of the stream.
    expect(jb.stats.underruns).toBe(2);
    const jump = [...steady(10), ...steady(10, 40000).map((a) => ({ ...a, at: a.at + 200 }))];
    const r = run(jump, 600);
    expect(r.jb.stats.resets).toBe(1);
    expect(r.jb.stats.played + r.jb.stats.dropped).toBe(20);
    expect(r.jb.stats.played).toBeGreaterThanOrEqual(18);
  });

  it('absorbs clock skew: a fast sender costs dropped frames, not growing latency', () => {
    // 1% fast for 60 s: 30 extra frames would pile up as 600 ms of delay.
    const fast = Array.from({ length: 3000 }, (_, i) => ({ seq: 5000 + i, at: Math.floor(i * 19.8) }));
    const { jb, depths } = run(fast, 59_500);
    // Never more than the target plus the hysteresis frame plus the one arriving: bounded, not growing.
    expect(Math.max(...depths.slice(100))).toBeLessThanOrEqual(4);
    const tail = depths.slice(2400, 2900);
    expect(tail.reduce((a, b) => a + b, 0) / tail.length).toBeLessThan(3.6);
    expect(jb.stats.dropped).toBeGreaterThanOrEqual(25);
    expect(jb.stats.late).toBe(0);
  });

  it('absorbs clock skew: a slow sender costs refills, not losses', () => {
    const slow = Array.from({ length: 2900 }, (_, i) => ({ seq: 7000 + i, at: Math.floor(i * 20.2) }));
    const { jb, out } = run(slow, 59_000);
    expect(jb.stats.concealed).toBe(0);
    expect(jb.stats.late).toBe(0);
    expect(jb.stats.underruns).toBeGreaterThan(0);
    expect(played(out).length).toBe(jb.stats.played);
  });

  it('keeps order and accounts for every packet under any reordering, loss and duplication (property)', () => {
    const arrival = fc.record({
      delay: fc.integer({ min: 0, max: 150 }),
      lost: fc.boolean(),
      dup: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffff }),
        fc.array(arrival, { minLength: 1, maxLength: 300 }),
        (first, pattern) => {
          const arrivals: Arrival[] = [];
          pattern.forEach((a, i) => {
            if (a.lost && i > 0) return;
            arrivals.push({ seq: first + i, at: i * 20 + a.delay });
            if (a.dup) arrivals.push({ seq: first + i, at: i * 20 + a.delay + 7 });
          });
          const head = arrivals.shift()!;
          arrivals.sort((x, y) => x.at - y.at);
          arrivals.unshift({ ...head, at: Math.min(head.at, arrivals[0]?.at ?? head.at) });
          const { jb, out } = run(arrivals, pattern.length * 20 + 800);
          const frames = played(out).filter((x): x is number => x !== 'loss');
          for (let i = 1; i < frames.length; i++) expect(frames[i]).toBeGreaterThan(frames[i - 1]);
          const s = jb.stats;
          expect(s.played + s.late + s.dropped + s.duplicates + jb.held).toBe(s.received);
          expect(frames).toHaveLength(s.played);
        },
      ),
      { numRuns: 150 },
    );
  });
});
