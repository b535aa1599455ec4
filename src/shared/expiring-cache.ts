// A read-through cache's memory: entries trusted for a fixed time on the injected clock, at most
// `maxEntries` of them (all dropped when full: the caches using it hold rarely-changing rows that
// are cheap to read again), and a generation that every clear() moves. A caller takes `stamp`
// before it asks the store and hands it to set(): a read that began before a clear (an edit or a
// revocation heard on the live-event bus) is then not stored, so it cannot outlive the news.
import type { Clock } from './clock.js';

export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private generation = 0;

  constructor(
    private readonly clock: Pick<Clock, 'monotonic'>,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** A token to pass to set(): the generation when the store was asked. */
  get stamp(): number {
    return this.generation;
  }

  /** The value kept for `key`, or undefined when there is none or it has expired. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.monotonic()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps what a read that began at `stamp` found, unless a clear came since. */
  set(key: K, value: V, stamp: number): void {
    if (stamp !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: this.clock.monotonic() + this.ttlMs });
  }

  /** Forgets everything, and refuses what reads begun before now bring back. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
