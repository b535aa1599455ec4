// The webhook worker: polls the delivery table for due deliveries, claims them under a lease,
// sends with bounded concurrency and records every attempt with its next retry time. It keeps no
// state of its own between polls, so any number of workers (processes or nodes) can run against
// one database, and a restarted one resumes the schedule the database holds.
import os from 'node:os';
import type { Dispatcher } from 'undici';
import type { Clock, TimerHandle } from '../shared/clock.js';
import { newId as uuidv7, type IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../store/database.js';
import { sendAttempt } from './deliver.js';
import {
  claimDue,
  LOG_RETENTION,
  pruneDeliveryLog,
  recordResults,
  releaseClaims,
  type ClaimedDelivery,
  type DeliveryResult,
  type LogRetention,
  type PausedEndpoint,
} from './delivery-store.js';
import { ENDPOINT_PAUSED_ERROR } from './event-types.js';
import type { OwnerNotifier } from './owner-notifier.js';

export interface SecretOpener {
  open(sealed: string): string;
}

export interface WebhookWorkerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  dispatcher: Dispatcher;
  secrets: SecretOpener;
  notifier: OwnerNotifier;
  /** Deliveries in flight at most (default 64). */
  concurrency?: number;
  /**
   * Deliveries in flight to any one endpoint at most (default 16, never more than `concurrency`),
   * so a slow or hanging receiver holds a bounded share of the worker and cannot starve the others.
   */
  perEndpointConcurrency?: number;
  /** How long a claim is held; must outlast the 10 s attempt plus recording. */
  leaseMs?: number;
  /** Idle poll interval when nothing was due. */
  pollIntervalMs?: number;
  random?: () => number;
  /**
   * X-Service-Delivery ids: a fresh UUID per attempt. Time-ordered (UUIDv7) by default, so the
   * attempt log's primary key grows at its end instead of at random pages.
   */
  newId?: IdGenerator;
  workerId?: string;
  /** How long the delivery log is kept (LOG_RETENTION by default); null: never prune. */
  retention?: LogRetention | null;
  /** How often the log is pruned (default hourly; the first run is a minute after start). */
  pruneIntervalMs?: number;
}

export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_PER_ENDPOINT_CONCURRENCY = 16;

export class WebhookWorker {
  readonly workerId: string;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  /** Per endpoint: claimed rows held (buffered or sending) and how many of them are sending. */
  private readonly held = new Map<string, { held: number; sending: number }>();
  /** Endpoints the last claim could take no more of: a slot freeing there may find more due. */
  private limited = new Set<string>();
  private pruneTimer: TimerHandle | null = null;
  private pruning: Promise<void> | null = null;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly random: () => number;
  private readonly newId: IdGenerator;
  private readonly secretCache = new Map<string, string>();
  /** Every claimed delivery until its result is recorded (what stop() waits for). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries being sent right now; bounded by `concurrency`. Recording does not hold a slot. */
  private sending = 0;
  private queue: Array<{ result: DeliveryResult; done: () => void }> = [];
  private flushing: Promise<void> | null = null;
  private timer: TimerHandle | null = null;
  private pumping = false;
  private pumped: Promise<void> = Promise.resolve();
  private running = false;
  /** Claimed, not yet sending: up to one batch ahead, so claims come in batches of `concurrency`. */
  private buffer: ClaimedDelivery[] = [];
  /** The last claim found fewer rows than asked: wait for the poll timer instead of re-claiming. */
  private drained = false;
  private attempts = 0;

  constructor(private readonly o: WebhookWorkerOptions) {
    this.concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
    this.perEndpoint = Math.max(
      1,
      Math.min(this.concurrency, o.perEndpointConcurrency ?? DEFAULT_PER_ENDPOINT_CONCURRENCY),
    );
    this.leaseMs = o.leaseMs ?? 60_000;
    this.pollIntervalMs = o.pollIntervalMs ?? 1_000;
    this.random = o.random ?? Math.random;
    this.newId = o.newId ?? uuidv7;
    this.workerId = o.workerId ?? `${os.hostname()}:${process.pid}:${this.newId().slice(-12)}`;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.pump();
    this.schedulePrune(Math.min(60_000, this.o.pruneIntervalMs ?? 3_600_000));
  }

  /** Asks for a poll now, e.g. right after a transaction emitted events. */
  wake(): void {
    this.drained = false;
    if (this.running) void this.pump();
  }

  /** Stops claiming and waits for every delivery in flight to be sent and recorded. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.pruneTimer) this.o.clock.clearTimeout(this.pruneTimer);
    this.pruneTimer = null;
    // Claimed but never sent: hand them back at once rather than let their lease run out.
    const unsent = this.buffer.splice(0);
    for (const c of unsent) this.drop(c.endpointId);
    if (unsent.length > 0) {
      await releaseClaims(
        this.o.store.db,
        this.workerId,
        unsent.map((c) => c.id),
        this.o.clock.now(),
      ).catch((err: unknown) => this.o.logger.error({ err }, 'webhook worker: releasing claims failed'));
    }
    // A claim running right now hands its rows back itself once it sees the worker stopped.
    await this.pumped;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    if (this.flushing) await this.flushing;
    if (this.pruning) await this.pruning;
  }

  /**
   * One claim of up to `concurrency` due deliveries (at most the per-endpoint cap of any one
   * endpoint), sent and recorded; returns how many.
   */
  async runOnce(): Promise<number> {
    const { claimed } = await this.claim(this.concurrency, this.perEndpoint);
    for (const c of claimed) this.hold(c.endpointId);
    await Promise.all(claimed.map((c) => this.track(c)));
    return claimed.length;
  }

  /** Prunes the delivery log now (what the hourly timer does); returns what was deleted. */
  async pruneNow(): Promise<{ deliveries: number; events: number }> {
    const result = await pruneDeliveryLog(
      this.o.store.db,
      this.o.clock.now(),
      this.o.retention ?? LOG_RETENTION,
    );

    if (result.deliveries > 0 || result.events > 0) {
      this.o.logger.info(result, 'webhook delivery log pruned');
    }
    return result;
  }

  private schedulePrune(ms: number): void {
    if (!this.running || this.o.retention === null) return;
    this.pruneTimer = this.o.clock.setTimeout(() => {
      this.pruneTimer = null;
      this.pruning = this.pruneNow()
        .then(() => undefined)
        .catch((err: unknown) => this.o.logger.error({ err }, 'webhook worker: pruning the log failed'))
        .finally(() => {
          this.pruning = null;
          this.schedulePrune(this.o.pruneIntervalMs ?? 3_600_000);
        });
    }, ms);
  }

  private hold(endpointId: string): void {
    const h = this.held.get(endpointId);
    if (h) h.held++;
    else this.held.set(endpointId, { held: 1, sending: 0 });
  }

  /** A held row is finished with (sent, or handed back). */
  private drop(endpointId: string): void {
    const h = this.held.get(endpointId);
    if (!h) return;
    if (--h.held <= 0) this.held.delete(endpointId);
    // Claim again for it once a batch's worth of its allowance is free, not for every single slot.
    if (this.limited.has(endpointId) && h.held <= this.perEndpoint) {
      this.limited.delete(endpointId);
      this.drained = false;
    }
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Attempts this worker has sent since it was created. */
  get attemptsSent(): number {
    return this.attempts;
  }

  /**
   * Claims up to `limit` due rows, at most `perEndpoint` held per endpoint counting what this
   * worker already holds. Also returns the endpoints that limit cut short (skipped, or given all
   * they were allowed): they may have more rows due.
   */
  private async claim(
    limit: number,
    perEndpoint: number,
  ): Promise<{ claimed: ClaimedDelivery[]; cut: Set<string> }> {
    const remaining = new Map<string, number>();
    for (const [endpointId, h] of this.held) remaining.set(endpointId, perEndpoint - h.held);
    const claimed = await claimDue(this.o.store.db, this.o.store.dialect, {
      owner: this.workerId,
      now: this.o.clock.now(),
      leaseMs: this.leaseMs,
      limit,
      endpointLimits: { perEndpoint, remaining },
    });
    const got = new Map<string, number>();
    for (const c of claimed) got.set(c.endpointId, (got.get(c.endpointId) ?? 0) + 1);
    const cut = new Set<string>();
    for (const [endpointId, left] of remaining) if (left <= 0) cut.add(endpointId);
    for (const [endpointId, n] of got) {
      if (n >= (remaining.get(endpointId) ?? perEndpoint)) cut.add(endpointId);
    }
    return { claimed, cut };
  }

  private pump(): Promise<void> {
    if (this.pumping || !this.running) return this.pumped;
    this.pumping = true;
    this.pumped = this.claimIntoBuffer();
    return this.pumped;
  }

  private async claimIntoBuffer(): Promise<void> {
    const room = 2 * this.concurrency - this.sending - this.buffer.length;
    // A full buffer is not an empty queue: keep claiming as slots free up.
    let full = room <= 0;
    try {
      if (room > 0) {
        // Each endpoint: its cap in flight plus as many buffered behind them, so a buffered row
        // waits at most one round of its endpoint's attempts (well inside the lease).
        const { claimed, cut } = await this.claim(room, 2 * this.perEndpoint);
        if (this.running) {
          for (const c of claimed) this.hold(c.endpointId);
          this.buffer.push(...claimed);
          // An endpoint the limit cut short is worth claiming for again once a batch's worth of
          // its allowance is free; if that is already so (its sends finished while this claim
          // ran), right away.
          this.limited = new Set();
          for (const endpointId of cut) {
            if ((this.held.get(endpointId)?.held ?? 0) > this.perEndpoint) this.limited.add(endpointId);
            else full = true;
          }
        } else if (claimed.length > 0) {
          await releaseClaims(
            this.o.store.db,
            this.workerId,
            claimed.map((c) => c.id),
            this.o.clock.now(),
          );
        }
        if (claimed.length === room) full = true;
      }
    } catch (err) {
      this.o.logger.error({ err }, 'webhook worker: claiming deliveries failed');
    } finally {
      this.pumping = false;
    }
    this.drained = !full;
    this.fill();
    if (!full) this.schedulePoll();
  }

  /**
   * Starts buffered deliveries while slots are free, skipping those whose endpoint is at its cap;
   * claims the next batch once the startable ones run low.
   */
  private fill(): void {
    if (!this.running) return;
    let blocked = 0;
    let stale: ClaimedDelivery[] | null = null;
    const now = this.o.clock.now();
    for (let i = 0; i < this.buffer.length;) {
      const c = this.buffer[i]!;
      if (this.sending >= this.concurrency) break;
      // A row that waited in the buffer past half its lease is not sent: its attempt could still be
      // running when the lease runs out and another worker claims it. It is handed back instead.
      if (now >= c.leaseExpiresAt - this.leaseMs / 2) {
        this.buffer.splice(i, 1);
        (stale ??= []).push(c);
        continue;
      }
      if ((this.held.get(c.endpointId)?.sending ?? 0) >= this.perEndpoint) {
        blocked++;
        i++;
        continue;
      }
      this.buffer.splice(i, 1);
      void this.track(c);
    }
    if (stale) this.handBack(stale);
    if (!this.drained && this.sending + this.buffer.length - blocked <= this.concurrency) {
      void this.pump();
    }
  }

  /** Releases claimed rows this worker will not send, so they are due again at once. */
  private handBack(rows: ClaimedDelivery[]): void {
    const p = releaseClaims(
      this.o.store.db,
      this.workerId,
      rows.map((c) => c.id),
      this.o.clock.now(),
    )
      .catch((err: unknown) => this.o.logger.error({ err }, 'webhook worker: releasing claims failed'))
      .finally(() => {
        this.inFlight.delete(p);
        for (const c of rows) this.drop(c.endpointId);
        this.fill();
      });
    this.inFlight.add(p);
  }

  private schedulePoll(): void {
    if (!this.running) return;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      this.drained = false;
      void this.pump();
    }, this.pollIntervalMs);
  }

  /** Sends a held row; its send slot (and its endpoint's) frees as soon as the attempt is over. */
  private track(c: ClaimedDelivery): Promise<void> {
    this.sending++;
    const h = this.held.get(c.endpointId);
    if (h) h.sending++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.sending--;
      if (h) h.sending--;
      this.drop(c.endpointId);
      this.fill();
    };
    const p = this.process(c, release)
      .catch((err: unknown) =>
        this.o.logger.error({ err, delivery_id: c.id }, 'webhook delivery failed to record'),
      )
      .finally(() => {
        release();
        this.inFlight.delete(p);
      });
    this.inFlight.add(p);
    return p;
  }

  private async process(c: ClaimedDelivery, sent: () => void): Promise<void> {
    let result: DeliveryResult;
    if (!c.endpoint) {
      result = { claim: c, skipped: 'endpoint deleted: not sent' };
    } else if (c.endpoint.status !== 'active') {
      result = { claim: c, skipped: ENDPOINT_PAUSED_ERROR };
    } else {
      const outcome = await sendAttempt(
        {
          url: c.endpoint.url,
          eventType: c.eventType,
          body: c.body,
          secret: this.secret(c.endpoint.secretEnc),
          attemptId: this.newId(),
        },
        { dispatcher: this.o.dispatcher, clock: this.o.clock },
      );
      this.attempts++;
      result = { claim: c, outcome };
    }
    // The slot frees as soon as the attempt is over; the row stays leased to us until recorded,
    // so no other claim can take it in between.
    sent();
    await new Promise<void>((done) => {
      this.queue.push({ result, done });
      void this.flush();
    });
  }

  private secret(sealed: string): string {
    let s = this.secretCache.get(sealed);
    if (s === undefined) {
      s = this.o.secrets.open(sealed);
      if (this.secretCache.size > 10_000) this.secretCache.clear();
      this.secretCache.set(sealed, s);
    }
    return s;
  }

  /** Group commit: results that finish while a write is running share the next transaction. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      // Let every response that is already readable finish first: better-sqlite3 commits without
      // yielding to the event loop, so without this pause each batch would hold one result.
      // Under load, one more short pause while sends are still finishing fills the batch further
      // (a real timer, not the injected clock: it paces I/O and decides nothing).
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (let waits = 0; waits < 4 && this.queue.length < this.concurrency && this.sending > 0; waits++) {
        await new Promise<void>((resolve) => setTimeout(resolve, 1));
      }
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          const paused = await recordResults(
            this.o.store.db,
            this.workerId,
            batch.map((b) => b.result),
            this.o.clock.now(),
            this.random,
          );
          for (const p of paused) await this.notifyPaused(p);
        } catch (err) {
          // Unrecorded attempts are sent again once their lease expires: at-least-once.
          this.o.logger.error({ err, count: batch.length }, 'webhook worker: recording attempts failed');
        } finally {
          for (const b of batch) b.done();
        }
      }
    })().finally(() => {
      this.flushing = null;
      // A result queued between the loop's last check and here would otherwise wait forever.
      if (this.queue.length > 0) void this.flush();
    });
    return this.flushing;
  }

  private async notifyPaused(p: PausedEndpoint): Promise<void> {
    try {
      const ws = await this.o.store.db
        .selectFrom('workspaces')
        .select('owner_email')
        .where('id', '=', p.workspaceId)
        .executeTakeFirst();
      this.o.logger.warn(
        { endpoint_id: p.endpointId, failing_since: p.failingSince },
        'webhook endpoint auto-paused',
      );
      await this.o.notifier.endpointPaused({
        to: ws?.owner_email ?? null,
        workspaceId: p.workspaceId,
        endpointId: p.endpointId,
        url: p.url,
        failingSince: p.failingSince,
      });
    } catch (err) {
      this.o.logger.error({ err, endpoint_id: p.endpointId }, 'could not tell the owner of an auto-pause');
    }
  }
}
