// The webhook worker's log pruning timer: prunes the delivery log (delivery-retention.ts) on the
// injected clock, a minute after start and then hourly by default, one run at a time.
import type { Db } from '../store/database.js';
import type { Clock, TimerHandle } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { LOG_RETENTION, pruneDeliveryLog, type LogRetention } from './delivery-retention.js';

export interface PrunerOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** How long the log is kept (LOG_RETENTION by default); null: never prune. */
  retention?: LogRetention | null;
  /** How often the log is pruned (default hourly; the first run is a minute after start). */
  intervalMs?: number;
}

export class LogPruner {
  private timer: TimerHandle | null = null;
  private pruning: Promise<void> | null = null;
  private running = false;

  constructor(private readonly o: PrunerOptions) {}

  start(): void {
    this.running = true;
    this.schedule(Math.min(60_000, this.o.intervalMs ?? 3_600_000));
  }

  /** Cancels the next run and waits for one in progress. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.pruning) await this.pruning;
  }

  /** Prunes the delivery log now; returns what was deleted. */
  async pruneNow(): Promise<{ deliveries: number; events: number }> {
    const result = await pruneDeliveryLog(this.o.db, this.o.clock.now(), this.o.retention ?? LOG_RETENTION);

    if (result.deliveries > 0 || result.events > 0) {
      this.o.logger.info(result, 'webhook delivery log pruned');
    }
    return result;
  }

  private schedule(ms: number): void {
    if (!this.running || this.o.retention === null) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      this.pruning = this.pruneNow()
        .then(() => undefined)
        .catch((err: unknown) => this.o.logger.error({ err }, 'webhook worker: pruning the log failed'))
        .finally(() => {
          this.pruning = null;
          this.schedule(this.o.intervalMs ?? 3_600_000);
        });
    }, ms);
  }
}
