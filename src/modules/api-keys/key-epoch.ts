// Reads the store's key epoch once a second and clears the key cache when it moved: how a
// revocation made where no live-event bus reaches this node (`switchboard key revoke` without
// REDIS_URL) still takes effect here within a second. One indexed point read per second per node.
import type { TimerHandle } from '../../shared/clock.js';
import type { ServiceDeps } from '../context.js';
import { apiKeysRepo } from './api-keys.repo.js';

const KEY_EPOCH_POLL_MS = 1_000;

/** Starts watching; the returned function stops. Does nothing without a key cache. */
export function watchKeyEpoch(
  deps: Pick<ServiceDeps, 'db' | 'keyCache' | 'logger' | 'clock'>,
  intervalMs = KEY_EPOCH_POLL_MS,
): () => void {
  const cache = deps.keyCache;
  if (!cache) return () => undefined;
  let last: string | null | undefined;
  let stopped = false;
  let timer: TimerHandle | null = null;
  const check = async () => {
    try {
      const epoch = await apiKeysRepo.keyEpoch(deps.db);
      if (last !== undefined && epoch !== last) cache.clear();
      last = epoch;
    } catch (err) {
      // The store is away: forget everything, so nothing outlives what the store could say.
      cache.clear();
      deps.logger.warn({ err }, 'could not read the API key epoch');
    }
    // The next read is scheduled when this one is done, so slow reads never pile up.
    if (!stopped) timer = deps.clock.setTimeout(() => void check(), intervalMs);
  };
  void check();
  return () => {
    stopped = true;
    if (timer) deps.clock.clearTimeout(timer);
  };
}
