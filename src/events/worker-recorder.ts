// The webhook worker's group commit: results of attempts that finish close together are recorded
// in one transaction (delivery-record.ts), and the owner of an endpoint that a batch auto-paused
// is told. A result's row stays leased to the worker until its batch is written, so no other
// claim can take it in between; a batch that fails to write is sent again once the lease expires.
import type { Db } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { deliveriesRepo } from './deliveries.repo.js';
import { recordResults, type DeliveryResult, type PausedEndpoint } from './delivery-record.js';
import type { OwnerNotifier } from './owner-notifier.js';

export interface RecorderOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  notifier: OwnerNotifier;
  workerId: string;
  random: () => number;
  /** A batch is worth filling up to this many results. */
  batchSize: number;
  /** Attempts still being sent, whose results may join the next batch. */
  sending: () => number;
}

export class ResultRecorder {
  private queue: Array<{ result: DeliveryResult; done: () => void }> = [];
  private flushing: Promise<void> | null = null;

  constructor(private readonly o: RecorderOptions) {}

  /** Queues a result for the next batch; settles once it is written (or its batch failed). */
  record(result: DeliveryResult): Promise<void> {
    return new Promise<void>((done) => {
      this.queue.push({ result, done });
      void this.flush();
    });
  }

  /** Settles once no batch is being written. */
  async idle(): Promise<void> {
    if (this.flushing) await this.flushing;
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
      for (
        let waits = 0;
        waits < 4 && this.queue.length < this.o.batchSize && this.o.sending() > 0;
        waits++
      ) {
        await new Promise<void>((resolve) => setTimeout(resolve, 1));
      }
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          const paused = await recordResults(
            this.o.db,
            this.o.workerId,
            batch.map((b) => b.result),
            this.o.clock.now(),
            this.o.random,
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
      const to = await deliveriesRepo.ownerEmail(this.o.db, p.workspaceId);
      this.o.logger.warn(
        { endpoint_id: p.endpointId, failing_since: p.failingSince },
        'webhook endpoint auto-paused',
      );
      await this.o.notifier.endpointPaused({
        to,
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
