// How long the delivery log is kept: finished deliveries (with their attempts) past their
// retention are deleted, then events no delivery refers to any more. Pending deliveries are never
// pruned. The worker runs this hourly (worker-pruner.ts).
import { toDbTime, type Db } from '../store/database.js';
import { deliveriesRepo } from './deliveries.repo.js';

const DAY_MS = 24 * 3_600_000;

/** How long the delivery log keeps finished deliveries (pending ones are never pruned). */
export interface LogRetention {
  /** Succeeded deliveries, with their attempts, this long after they succeeded. */
  succeededMs: number;
  /** Failed and dead deliveries, with their attempts, this long after they stopped (redeliverable until then). */
  finishedMs: number;
}

export const LOG_RETENTION: LogRetention = { succeededMs: 7 * DAY_MS, finishedMs: 30 * DAY_MS };

/**
 * Deletes finished deliveries whose age (since they finished) has reached the retention, with
 * their attempts, then events at least that old that no longer have any delivery. Works in chunks, each its own
 * short transaction, so a large backlog never holds the database for long.
 */
export async function pruneDeliveryLog(
  db: Db,
  now: number,
  retention: LogRetention = LOG_RETENTION,
  chunk = 1_000,
): Promise<{ deliveries: number; events: number }> {
  let deliveries = 0;
  const passes: Array<{ statuses: string[]; before: string }> = [
    { statuses: ['succeeded'], before: toDbTime(now - retention.succeededMs) },
    { statuses: ['failed', 'dead'], before: toDbTime(now - retention.finishedMs) },
  ];
  for (const pass of passes) {
    for (;;) {
      const ids = await deliveriesRepo.finishedIds(db, pass.statuses, pass.before, chunk);
      if (ids.length === 0) break;
      await db.transaction().execute(async (trx) => {
        // Re-checked inside the transaction: a delivery redelivered since the select is kept.
        deliveries += await deliveriesRepo.deleteFinished(trx, ids, pass.statuses, pass.before);
      });
      if (ids.length < chunk) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  let events = 0;
  const eventsBefore = toDbTime(now - Math.min(retention.succeededMs, retention.finishedMs));
  for (;;) {
    const gone = await deliveriesRepo.deleteOrphanEvents(db, eventsBefore, chunk);
    events += gone;
    if (gone < chunk) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { deliveries, events };
}
