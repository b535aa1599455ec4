// Per-source token buckets (the idea of Kamailio's pike module), so one address flooding the
// port is slowed down without starving everyone else: each source address may send `burst`
// messages at once and `ratePerSecond` sustained; what it sends beyond is dropped unread and
// unanswered (an answer would make us a reflector for spoofed floods). Sources in `exempt` (a
// proxy in front of the node such as Kamailio, a carrier's signalling addresses: everything from
// them is many callers' traffic) are never throttled; overload control (overload.ts) protects
// the node from them. Time comes from the injected clock.
import ipaddr from 'ipaddr.js';
import type { Clock } from '../../../shared/clock.js';

export interface ThrottleOptions {
  /** Sustained messages per second per source address. */
  readonly ratePerSecond: number;
  /** Messages a source may send at once before the rate applies. */
  readonly burst: number;
  /** Sources tracked at most; the stalest are forgotten first. */
  readonly maxSources?: number;
  /** Addresses or CIDR ranges never throttled. */
  readonly exempt?: readonly string[];
}

/** A CIDR range or a single address (as /32 or /128); throws on anything else. */
export function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const t = text.trim();
  if (t.includes('/')) return ipaddr.parseCIDR(t);
  const a = ipaddr.parse(t);
  return [a, a.kind() === 'ipv4' ? 32 : 128];
}

export const DEFAULT_THROTTLE: ThrottleOptions = { ratePerSecond: 500, burst: 1000, maxSources: 50_000 };

export class SourceThrottle {
  private readonly buckets = new Map<string, { tokens: number; at: number; exempt: boolean }>();
  private readonly exempt: ReturnType<typeof parseRange>[];

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {
    this.exempt = (options.exempt ?? []).map(parseRange);
  }

  private isExempt(source: string): boolean {
    if (this.exempt.length === 0 || !ipaddr.isValid(source)) return false;
    let a = ipaddr.parse(source);
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress())
      a = (a as ipaddr.IPv6).toIPv4Address();
    return this.exempt.some((r) => r[0].kind() === a.kind() && a.match(r));
  }

  /** Takes a token for this source; false means drop the message. */
  allow(source: string): boolean {
    const now = this.clock.monotonic();
    let b = this.buckets.get(source);
    if (!b) {
      if (this.buckets.size >= (this.options.maxSources ?? 50_000)) {
        this.buckets.delete(this.buckets.keys().next().value!);
      }
      b = { tokens: this.options.burst, at: now, exempt: this.isExempt(source) };
    } else {
      b.tokens = Math.min(this.options.burst, b.tokens + ((now - b.at) / 1000) * this.options.ratePerSecond);
      b.at = now;
      this.buckets.delete(source);
    }
    // Re-inserting keeps the Map in least-recently-seen order for eviction.
    this.buckets.set(source, b);
    if (b.exempt) return true;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
