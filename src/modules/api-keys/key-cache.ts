// Remembers, for a few seconds, the key rows that authentication found by hash, so a request on
// PostgreSQL skips one round trip to the store. A key is cached only while it is valid; what makes
// a revocation work at once everywhere:
// - on the node that revokes (API): the service clears this cache before answering;
// - on the other nodes: the revocation goes out on the live-event bus (api_key.revoked; Redis
//   between nodes), and every node clears its cache when it hears it (events/live-follow.ts);
// - from `switchboard key revoke` with no bus to speak on (no REDIS_URL): the revocation also
//   changes the store's key epoch, which each node reads once a second (watchKeyEpoch), so such a
//   revocation takes effect within a second.
// Unknown keys are never remembered: a key created a moment ago (by the API or the CLI) works on
// the next request. SQLite needs none of this: its point read is in-process and costs less than a
// cache's bookkeeping, so the cache is only built for PostgreSQL (see wiring).
import type { Clock } from '../../shared/clock.js';
import { ExpiringCache } from '../../shared/expiring-cache.js';
import type { KeyForAuth } from './api-keys.repo.js';

/** How long a found key is trusted without asking the store again. */
const KEY_CACHE_TTL_MS = 10_000;

export class KeyCache {
  private readonly keys: ExpiringCache<string, KeyForAuth>;

  constructor(clock: Pick<Clock, 'monotonic'>, ttlMs = KEY_CACHE_TTL_MS) {
    this.keys = new ExpiringCache(clock, ttlMs);
  }

  get(hash: string): KeyForAuth | undefined {
    return this.keys.get(hash);
  }

  /** A token to pass to set(): the generation when the store was asked. */
  get stamp(): number {
    return this.keys.stamp;
  }

  /** Remembers a valid key found by a lookup that began at `stamp`, unless a clear came since. */
  set(hash: string, row: KeyForAuth, stamp: number): void {
    if (row.revoked_at === null) this.keys.set(hash, row, stamp);
  }

  /** Forgets every key: a key was revoked somewhere (revocations are rare; keys are re-read). */
  clear(): void {
    this.keys.clear();
  }
}
