// Per-source token buckets, so one address flooding the port is slowed down without starving
// everyone else. Time comes from the injected clock.
import type { Clock } from '../../../shared/clock.js';

export interface ThrottleOptions {
  /** Sustained messages per second per source address. */
  readonly ratePerSecond: number;
  /** Messages a source may send at once before the rate applies. */
  readonly burst: number;
  /** Sources tracked at most; the stalest are forgotten first. */
  readonly maxSources?: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { ratePerSecond: 500, burst: 1000, maxSources: 50_000 };

export class SourceThrottle {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  /** Takes a token for this source; false means drop the message. */
  allow(source: string): boolean {
    const now = this.clock.monotonic();
    let b = this.buckets.get(source);
    if (!b) {
      if (this.buckets.size >= (this.options.maxSources ?? 50_000)) {
        this.buckets.delete(this.buckets.keys().next().value!);
      }
      b = { tokens: this.options.burst, at: now };
    } else {
      b.tokens = Math.min(this.options.burst, b.tokens + ((now - b.at) / 1000) * this.options.ratePerSecond);
      b.at = now;
      this.buckets.delete(source);
    }
    // Re-inserting keeps the Map in least-recently-seen order for eviction.
    this.buckets.set(source, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
