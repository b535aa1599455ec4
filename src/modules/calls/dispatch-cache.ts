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
import type { Logger } from '../../shared/logger.js';
import type { PhoneNumberTable, SipTrunkTable } from '../../store/schema.js';

/** How long an entry is trusted without a bus message saying otherwise. */
const DISPATCH_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** What admission needs of a called number. */
export interface DispatchTarget {
  workspaceId: string;
  number: PhoneNumberTable;
  trunk: Pick<SipTrunkTable, 'id' | 'provider' | 'allowed_ips'>;
}

export class DispatchCache {
  private readonly byCalled = new Map<string, { target: DispatchTarget; until: number }>();
  private readonly providers = new Map<string, { provider: string | null; until: number }>();
  /** Moves on every clear, so a lookup that began before an edit cannot store what it read. */
  private generation = 0;

  constructor(
    private readonly clock: Pick<Clock, 'monotonic'>,
    private readonly ttlMs = DISPATCH_CACHE_TTL_MS,
  ) {}

  /** A token to pass to set(): the generation when the store was asked. */
  get stamp(): number {
    return this.generation;
  }

  /** The cached target of `called` under the SIP label, or undefined. */
  get(label: string, called: string): DispatchTarget | undefined {
    const key = `${label}\n${called}`;
    const entry = this.byCalled.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.monotonic()) {
      this.byCalled.delete(key);
      return undefined;
    }
    return entry.target;
  }

  /** Remembers what a lookup that began at `stamp` found, unless an edit came since. */
  set(label: string, called: string, target: DispatchTarget, stamp: number): void {
    if (stamp !== this.generation) return;
    if (this.byCalled.size >= MAX_ENTRIES) this.byCalled.clear();
    const until = this.clock.monotonic() + this.ttlMs;
    this.byCalled.set(`${label}\n${called}`, { target, until });
    this.setProvider(target.number.id, target.trunk.provider, stamp);
  }

  /** The provider of a number's trunk: a string or null when known, undefined when not cached. */
  provider(numberId: string): string | null | undefined {
    const entry = this.providers.get(numberId);
    if (!entry) return undefined;
    if (entry.until <= this.clock.monotonic()) {
      this.providers.delete(numberId);
      return undefined;
    }
    return entry.provider;
  }

  setProvider(numberId: string, provider: string | null, stamp: number): void {
    if (stamp !== this.generation) return;
    if (this.providers.size >= MAX_ENTRIES) this.providers.clear();
    this.providers.set(numberId, { provider, until: this.clock.monotonic() + this.ttlMs });
  }

  /** Forgets everything: a trunk or a number changed somewhere (edits are rare; entries are re-read). */
  clear(): void {
    this.generation++;
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
