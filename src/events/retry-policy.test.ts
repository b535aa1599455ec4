import { describe, expect, it } from 'vitest';
import { JITTER_FRACTION, MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs } from './retry-policy.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('retry policy', () => {
  it('follows the documented schedule with zero jitter at the midpoint', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, mid))).toEqual([
      30 * S,
      2 * M,
      10 * M,
      30 * M,
      2 * H,
      6 * H,
      12 * H,
    ]);
  });

  it('keeps every delay within ±10 % of its base', () => {
    expect(JITTER_FRACTION).toBe(0.1);
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const base = RETRY_DELAYS_MS[n - 1]!;
      expect(retryDelayMs(n, () => 0)).toBe(Math.round(base * 0.9));
      expect(retryDelayMs(n, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
      expect(retryDelayMs(n, () => 0.999999)).toBeGreaterThan(Math.round(base * 1.09));
      for (let i = 0; i < 200; i++) {
        const d = retryDelayMs(n)!;
        expect(d).toBeGreaterThanOrEqual(base * 0.9 - 1);
        expect(d).toBeLessThanOrEqual(base * 1.1 + 1);
      }
    }
  });

  it('spreads retries (jitter is not constant)', () => {
    const seen = new Set(Array.from({ length: 50 }, () => retryDelayMs(5)));
    expect(seen.size).toBeGreaterThan(10);
  });

  it('has no delay after the eighth failure: the delivery is dead', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(retryDelayMs(8)).toBeNull();
    expect(retryDelayMs(9)).toBeNull();
    expect(() => retryDelayMs(0)).toThrow(RangeError);
  });
});
