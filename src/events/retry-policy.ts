// When a failed webhook delivery is tried again (section 6.4).
//
// Eight attempts in all. After failed attempt n = 1…7 the next one waits 30 s, 2 min, 10 min,
// 30 min, 2 h, 6 h, 12 h. The spec's table also lists 24 h under "attempt 8", but its limits table
// caps deliveries at 8 attempts and the eighth failure marks the delivery dead, so a delay after
// the eighth failure would only serve a ninth attempt that never happens: we read it as unused.
//
// Jitter: each delay is multiplied by a uniform factor in [0.9, 1.1) (±10 %), so endpoints that
// failed together (an outage) are not all retried in the same second, while every delay stays
// within 10 % of the documented schedule.

export const MAX_ATTEMPTS = 8;
export const JITTER_FRACTION = 0.1;

/** Base delay after failed attempt n (index n - 1), before jitter. */
export const RETRY_DELAYS_MS: readonly number[] = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
];

/**
 * Milliseconds to wait after failed attempt `attempt` (1-based, counted within the current round of
 * attempts), or null when it was the last one and the delivery is dead. `random` returns [0, 1).
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`bad attempt number ${attempt}`);
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attempt - 1]!;
  const factor = 1 - JITTER_FRACTION + 2 * JITTER_FRACTION * random();
  return Math.round(base * factor);
}
