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
import type { KeyForAuth } from './api-keys.repo.js';

/** How long a found key is trusted without asking the store again. */
const KEY_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { row: KeyForAuth; until: number }>();
  /** Moves on every clear, so a lookup that started before a revocation cannot cache its row. */
  private generation = 0;

  constructor(
    private readonly clock: Pick<Clock, 'monotonic'>,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  get(hash: string): KeyForAuth | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.until <= this.clock.monotonic()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.row;
  }

  /** A token to pass to set(): the generation when the store was asked. */
  get stamp(): number {
    return this.generation;
  }

  /** Remembers a valid key found by a lookup that began at `stamp`, unless a clear came since. */
  set(hash: string, row: KeyForAuth, stamp: number): void {
    if (stamp !== this.generation || row.revoked_at !== null) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { row, until: this.clock.monotonic() + this.ttlMs });
  }

  /** Forgets every key: a key was revoked somewhere (revocations are rare; keys are re-read). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
