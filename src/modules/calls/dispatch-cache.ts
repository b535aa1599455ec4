// What inbound admission learns about a called number before its transaction writes anything:
// the workspace of the request-URI's SIP label, the number's row (its project and dispatch rules)
// and the number's trunk (allowed_ips, provider). Every INVITE to a number asks the same three
// questions, and the answers change only when someone edits a trunk or a number (its rules are on
// the number), so they are kept here instead of read in every call's transaction. Like the API-key
// cache (api-keys/key-cache.ts), what makes an edit count at once everywhere:
// - on the node whose API made the edit: the service clears this cache once its transaction has
//   committed (dispatchChanged below);
// - on the other nodes: the edit goes out on the live-event bus (dispatch.changed; Redis between
//   nodes, the in-process hub on one), and every node clears its cache when it hears it
//   (events/live-follow.ts);
// - should a bus message be lost (pub/sub is best effort), no entry is trusted longer than
//   DISPATCH_CACHE_TTL_MS.
// Only numbers found are remembered: a number registered a moment ago answers its first call, and
// strangers dialling made-up numbers cannot fill the cache. Workflows are not cached: admission
// reads the winning rule's workflow in its transaction, so publishing takes effect on the next call.
// The voice minutes of a call's end name its number's trunk provider: kept here too, by number id.
import { announce, type LivePublisher } from '../../events/live-bus.js';
import type { Clock } from '../../shared/clock.js';
import { ExpiringCache } from '../../shared/expiring-cache.js';
import type { Logger } from '../../shared/logger.js';
import type { PhoneNumberTable, SipTrunkTable } from '../../store/schema.js';

/** How long an entry is trusted without a bus message saying otherwise. */
const DISPATCH_CACHE_TTL_MS = 60_000;

/** What admission needs of a called number. */
export interface DispatchTarget {
  workspaceId: string;
  number: PhoneNumberTable;
  trunk: Pick<SipTrunkTable, 'id' | 'provider' | 'allowed_ips'>;
}

export class DispatchCache {
  /** By SIP label and called number. */
  private readonly byCalled: ExpiringCache<string, DispatchTarget>;
  /** A number's trunk provider (null: none) by number id. Cleared with byCalled, so their stamps agree. */
  private readonly providers: ExpiringCache<string, string | null>;

  constructor(clock: Pick<Clock, 'monotonic'>, ttlMs = DISPATCH_CACHE_TTL_MS) {
    this.byCalled = new ExpiringCache(clock, ttlMs);
    this.providers = new ExpiringCache(clock, ttlMs);
  }

  /** A token to pass to set() and setProvider(): the generation when the store was asked. */
  get stamp(): number {
    return this.byCalled.stamp;
  }

  /** The cached target of `called` under the SIP label, or undefined. */
  get(label: string, called: string): DispatchTarget | undefined {
    return this.byCalled.get(`${label}\n${called}`);
  }

  /** Remembers what a lookup that began at `stamp` found, unless an edit came since. */
  set(label: string, called: string, target: DispatchTarget, stamp: number): void {
    this.byCalled.set(`${label}\n${called}`, target, stamp);
    this.providers.set(target.number.id, target.trunk.provider, stamp);
  }

  /** The provider of a number's trunk: a string or null when known, undefined when not cached. */
  provider(numberId: string): string | null | undefined {
    return this.providers.get(numberId);
  }

  setProvider(numberId: string, provider: string | null, stamp: number): void {
    this.providers.set(numberId, provider, stamp);
  }

  /** Forgets everything: a trunk or a number changed somewhere (edits are rare; entries are re-read). */
  clear(): void {
    this.byCalled.clear();
    this.providers.clear();
  }
}

/**
 * A trunk or number of the workspace changed (its transaction committed): this process's cache
 * forgets at once, and the other nodes are told. A failure to tell them is logged (announce).
 */
export async function dispatchChanged(
  deps: { dispatchCache?: DispatchCache | null | undefined; logger: Pick<Logger, 'error'> },
  live: LivePublisher | undefined,
  workspaceId: string,
): Promise<void> {
  deps.dispatchCache?.clear();
  await announce(live, { kind: 'dispatch.changed', workspace_id: workspaceId }, deps.logger);
}
