// The webhook worker's per-endpoint bookkeeping: how many claimed rows it holds for each endpoint
// (buffered or sending) and how many of them are sending, so no endpoint gets more than its cap in
// flight, and which endpoints a claim cut short (they may have more rows due once some of their
// held rows are finished with).

/**
 * Rows of one endpoint a worker holds at most, in multiples of its cap in flight: the cap sending
 * and two batches of it buffered behind them. A buffered row waits at most two rounds of its
 * endpoint's attempts: 20 s for a receiver that hangs every attempt, inside the half lease (30 s)
 * after which a row is handed back unsent. Only the first buffered batch takes the worker's room
 * for claimed rows (see `beyondFirstBatch`).
 */
export const HELD_PER_CAP = 3;

export class EndpointSlots {
  /** Per endpoint: claimed rows held (buffered or sending) and how many of them are sending. */
  private readonly held = new Map<string, { held: number; sending: number }>();
  /** Endpoints the last claim could take no more of: a slot freeing there may find more due. */
  private limited = new Set<string>();

  /** Rows of one endpoint held at most (sending and buffered). */
  readonly allowance: number;
  /** A cut-short endpoint is claimed for again once it holds this many rows or fewer. */
  private readonly reclaimAt: number;
  /** Sum over endpoints of the buffered rows past their first batch. */
  private beyond = 0;

  /**
   * `perEndpoint`: attempts in flight to one endpoint at most. `claimBatches`: how many batches of
   * that cap must be free before an endpoint is claimed for again (1 or 2).
   */
  constructor(
    readonly perEndpoint: number,
    claimBatches: 1 | 2 = 1,
  ) {
    this.allowance = HELD_PER_CAP * perEndpoint;
    this.reclaimAt = this.allowance - claimBatches * perEndpoint;
  }

  /**
   * Rows buffered past one batch of their endpoint's cap, all endpoints together. The worker does
   * not count them against its room for claimed rows: endpoints at their cap then take at most one
   * batch each of that room, and since their caps together fit in the worker's concurrency, rows
   * they hold can never fill the room while send slots are idle and other endpoints have rows due.
   */
  get beyondFirstBatch(): number {
    return this.beyond;
  }

  /** A claimed row of `endpointId` is now held. */
  hold(endpointId: string): void {
    const h = this.held.get(endpointId);
    if (h) this.change(h, () => h.held++);
    else this.held.set(endpointId, { held: 1, sending: 0 });
  }

  private change(h: { held: number; sending: number }, mutate: () => void): void {
    const past = (): number => Math.max(0, h.held - h.sending - this.perEndpoint);
    this.beyond -= past();
    mutate();
    this.beyond += past();
  }

  /**
   * A held row is finished with (sent, or handed back). True when its endpoint was cut short by
   * the last claim and now has a batch's worth of its allowance free: worth claiming for again.
   */
  drop(endpointId: string): boolean {
    const h = this.held.get(endpointId);
    if (!h) return false;
    this.change(h, () => h.held--);
    if (h.held <= 0) this.held.delete(endpointId);
    // Claim again for it once a batch's worth of its allowance is free, not for every single slot.
    if (this.limited.has(endpointId) && h.held <= this.reclaimAt) {
      this.limited.delete(endpointId);
      return true;
    }
    return false;
  }

  /** Whether `endpointId` already has its cap of attempts in flight. */
  atCap(endpointId: string): boolean {
    return (this.held.get(endpointId)?.sending ?? 0) >= this.perEndpoint;
  }

  /** A held row starts sending; the returned function ends that (call it once). */
  startSending(endpointId: string): () => void {
    const h = this.held.get(endpointId);
    if (h) this.change(h, () => h.sending++);
    return () => {
      if (h) this.change(h, () => h.sending--);
    };
  }

  /** What a claim allowing `allowance` rows per endpoint may still take for each endpoint held. */
  remaining(allowance: number): Map<string, number> {
    const remaining = new Map<string, number>();
    for (const [endpointId, h] of this.held) remaining.set(endpointId, allowance - h.held);
    return remaining;
  }

  /**
   * The endpoints a claim cut short: skipped (nothing remaining), or given all they were allowed.
   * They may have more rows due.
   */
  static cut(
    claimed: ReadonlyArray<{ endpointId: string }>,
    remaining: ReadonlyMap<string, number>,
    allowance: number,
  ): Set<string> {
    const got = new Map<string, number>();
    for (const c of claimed) got.set(c.endpointId, (got.get(c.endpointId) ?? 0) + 1);
    const cut = new Set<string>();
    for (const [endpointId, left] of remaining) if (left <= 0) cut.add(endpointId);
    for (const [endpointId, n] of got) {
      if (n >= (remaining.get(endpointId) ?? allowance)) cut.add(endpointId);
    }
    return cut;
  }

  /**
   * Remembers the endpoints a claim cut short, to claim for them again once a batch's worth of
   * their allowance is free. True when that is already so for one of them (its sends finished
   * while the claim ran): claim again right away.
   */
  limit(cut: Set<string>): boolean {
    this.limited = new Set();
    let ready = false;
    for (const endpointId of cut) {
      if ((this.held.get(endpointId)?.held ?? 0) > this.reclaimAt) {
        this.limited.add(endpointId);
      } else ready = true;
    }
    return ready;
  }
}
