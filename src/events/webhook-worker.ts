// The webhook worker: polls the delivery table for due deliveries, claims them under a lease,
// sends with bounded concurrency and records every attempt with its next retry time. It keeps no
// state of its own between polls, so any number of workers (processes or nodes) can run against
// one database, and a restarted one resumes the schedule the database holds.
// This file is the scheduling: claiming into a buffer one batch ahead, starting sends as slots
// free, handing back what it will not send. Per-endpoint caps are worker-slots.ts, recording
// results worker-recorder.ts, pruning the log worker-pruner.ts.
import os from 'node:os';
import type { Dispatcher } from 'undici';
import type { Clock, TimerHandle } from '../shared/clock.js';
import { newId as uuidv7, type IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../store/database.js';
import { sendAttempt } from './deliver.js';
import { claimDue, releaseClaims, type ClaimedDelivery } from './delivery-claim.repo.js';
import type { DeliveryResult } from './delivery-record.js';
import type { LogRetention } from './delivery-retention.js';
import { ENDPOINT_PAUSED_ERROR } from './event-types.js';
import type { OwnerNotifier } from './owner-notifier.js';
import { LogPruner } from './worker-pruner.js';
import { ResultRecorder } from './worker-recorder.js';
import { EndpointSlots } from './worker-slots.js';

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
  private readonly slots: EndpointSlots;
  private readonly recorder: ResultRecorder;
  private readonly pruner: LogPruner;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly random: () => number;
  private readonly newId: IdGenerator;
  private readonly secretCache = new Map<string, string>();
  /** Every claimed delivery until its result is recorded (what stop() waits for). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries being sent right now; bounded by `concurrency`. Recording does not hold a slot. */
  private sending = 0;
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
    // An endpoint is claimed for again once one batch of its cap is free on PostgreSQL: a claim
    // waits for the server (its commit reaches disk), and the batch still buffered keeps sends
    // going meanwhile. A SQLite claim is answered before anything else runs, so nothing waits on
    // it: claim once two batches are free, half as many claims (each writes fewer pages per row).
    this.slots = new EndpointSlots(this.perEndpoint, o.store.dialect === 'postgres' ? 1 : 2);
    this.recorder = new ResultRecorder({
      db: o.store.db,
      clock: o.clock,
      logger: o.logger,
      notifier: o.notifier,
      workerId: this.workerId,
      random: this.random,
      batchSize: this.concurrency,
      sending: () => this.sending,
    });
    this.pruner = new LogPruner({
      db: o.store.db,
      clock: o.clock,
      logger: o.logger,
      retention: o.retention,
      intervalMs: o.pruneIntervalMs,
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.pump();
    this.pruner.start();
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
    const pruned = this.pruner.stop();
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
    await this.recorder.idle();
    await pruned;
  }

  /**
   * One claim of up to `concurrency` due deliveries (at most the per-endpoint cap of any one
   * endpoint), sent and recorded; returns how many.
   */
  async runOnce(): Promise<number> {
    const { claimed } = await this.claim(this.concurrency, this.perEndpoint);
    for (const c of claimed) this.slots.hold(c.endpointId);
    await Promise.all(claimed.map((c) => this.track(c)));
    return claimed.length;
  }

  /** Prunes the delivery log now (what the hourly timer does); returns what was deleted. */
  pruneNow(): Promise<{ deliveries: number; events: number }> {
    return this.pruner.pruneNow();
  }

  /** A held row is finished with (sent, or handed back). */
  private drop(endpointId: string): void {
    if (this.slots.drop(endpointId)) this.drained = false;
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
    const remaining = this.slots.remaining(perEndpoint);
    const claimed = await claimDue(this.o.store.db, this.o.store.dialect, {
      owner: this.workerId,
      now: this.o.clock.now(),
      leaseMs: this.leaseMs,
      limit,
      endpointLimits: { perEndpoint, remaining },
    });
    return { claimed, cut: EndpointSlots.cut(claimed, remaining, perEndpoint) };
  }

  private pump(): Promise<void> {
    if (this.pumping || !this.running) return this.pumped;
    this.pumping = true;
    this.pumped = this.claimIntoBuffer();
    return this.pumped;
  }

  /**
   * Rows the next claim may take: up to twice the concurrency held (sending or buffered), not
   * counting rows buffered past the first batch of their endpoint's cap (EndpointSlots).
   */
  private room(): number {
    return 2 * this.concurrency - this.sending - this.buffer.length + this.slots.beyondFirstBatch;
  }

  private async claimIntoBuffer(): Promise<void> {
    const room = this.room();
    // A full buffer is not an empty queue: keep claiming as slots free up.
    let full = room <= 0;
    try {
      if (room > 0) {
        // Each endpoint: its cap in flight plus two batches of it buffered (HELD_PER_CAP).
        const { claimed, cut } = await this.claim(room, this.slots.allowance);
        if (this.running) {
          for (const c of claimed) this.slots.hold(c.endpointId);
          this.buffer.push(...claimed);
          // An endpoint the limit cut short is worth claiming for again once a batch's worth of
          // its allowance is free; if that is already so (its sends finished while this claim
          // ran), right away.
          if (this.slots.limit(cut)) full = true;
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
      if (this.slots.atCap(c.endpointId)) {
        blocked++;
        i++;
        continue;
      }
      this.buffer.splice(i, 1);
      void this.track(c);
    }
    if (stale) this.handBack(stale);
    if (!this.drained && this.sending + this.buffer.length - blocked <= this.concurrency && this.room() > 0) {
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
    const stopSending = this.slots.startSending(c.endpointId);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.sending--;
      stopSending();
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
    await this.recorder.record(result);
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
}
