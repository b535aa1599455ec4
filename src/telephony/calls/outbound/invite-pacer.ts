// Paces the INVITEs this node sends to one carrier host, for carriers that cap the call set-up
// rate (carrier_a: 30 per second from one of our addresses to one of theirs; beyond that its
// anti-abuse limits start refusing). INVITEs are spread evenly: the n-th waiting INVITE to a host
// leaves n intervals after the last one, rather than in a burst at the start of each second. A
// node sends from one address, so the host is the pair. Time is the injected clock's (monotonic).
import type { Clock } from '../../../shared/clock.js';

export class InvitePacer {
  /** Per host: when (monotonic ms) the next INVITE may leave. */
  private readonly next = new Map<string, number>();
  /** INVITEs waiting for their slot now (tests and logs). */
  waiting = 0;

  constructor(private readonly clock: Clock) {}

  /** Resolves when an INVITE to `host` may leave without exceeding `perSecond`. */
  slot(host: string, perSecond: number): Promise<void> {
    const key = host.toLowerCase();
    const interval = 1000 / perSecond;
    const now = this.clock.monotonic();
    const at = Math.max(now, this.next.get(key) ?? now);
    this.next.set(key, at + interval);
    // Forget hosts that went quiet, so the map does not keep every host ever dialled.
    if (this.next.size > 1000) for (const [k, t] of this.next) if (t <= now) this.next.delete(k);
    const wait = Math.ceil(at - now);
    if (wait <= 0) return Promise.resolve();
    this.waiting++;
    return new Promise((resolve) =>
      this.clock.setTimeout(() => {
        this.waiting--;
        resolve();
      }, wait),
    );
  }
}
