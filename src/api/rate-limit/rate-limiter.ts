// Per-workspace request limit over a true sliding window: the log of accepted requests in the last
// 60 s is kept, so no 60 s span (whatever minute boundaries it straddles) ever holds more than the
// limit. Rejected requests are not logged, so a client that backs off recovers on schedule.
import type { Clock } from '../../shared/clock.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until a request would be accepted again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  /** The same decision without a promise, for limiters that need no I/O. */
  hitSync?(key: string): RateDecision;
  close?(): Promise<void>;
}

export const WINDOW_MS = 60_000;

/**
 * The accepted timestamps of one key, oldest first, in a ring that grows (doubling, up to the
 * limit) as needed: unboxed doubles, and a key only ever holds memory for what it really sent,
 * however high the limit.
 */
interface Log {
  times: Float64Array;
  head: number;
  count: number;
}

const INITIAL_CAPACITY = 64;

/** In-process limiter: a ring of accepted timestamps per key. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private sweeps = 0;

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
  ) {}

  async hit(key: string): Promise<RateDecision> {
    return this.hitSync(key);
  }

  hitSync(key: string): RateDecision {
    const now = this.clock.now();
    let log = this.logs.get(key);
    if (!log) {
      log = { times: new Float64Array(Math.min(this.limit, INITIAL_CAPACITY)), head: 0, count: 0 };
      this.logs.set(key, log);
    }
    // Drop entries that left the window (oldest first).
    while (log.count > 0 && log.times[log.head]! <= now - WINDOW_MS) {
      log.head = (log.head + 1) % log.times.length;
      log.count--;
    }
    if (log.count < this.limit) {
      if (log.count === log.times.length) grow(log, this.limit);
      log.times[(log.head + log.count) % log.times.length] = now;
      log.count++;
      if (++this.sweeps % 10_000 === 0) this.sweep(now);
      return { allowed: true, limit: this.limit, remaining: this.limit - log.count, retryAfterSeconds: 0 };
    }
    const oldest = log.times[log.head]!;
    return {
      allowed: false,
      limit: this.limit,
      remaining: 0,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)),
    };
  }

  /** Forgets keys idle for a whole window so the map does not grow without bound. */
  private sweep(now: number): void {
    for (const [key, log] of this.logs) {
      const newest = log.count ? log.times[(log.head + log.count - 1) % log.times.length]! : -Infinity;
      if (newest <= now - WINDOW_MS) this.logs.delete(key);
    }
  }
}

/** A full ring, twice as large (at most `limit`), its entries moved to the front in order. */
function grow(log: Log, limit: number): void {
  const old = log.times;
  const next = new Float64Array(Math.min(limit, old.length * 2));
  for (let i = 0; i < log.count; i++) next[i] = old[(log.head + i) % old.length]!;
  log.times = next;
  log.head = 0;
}
