// How long the delivery log is kept: finished deliveries (with their attempts) past their
// retention are deleted, then events no delivery refers to any more. Pending deliveries are never
// pruned. The worker runs this hourly (worker-pruner.ts).
import { toDbTime, type Db } from '../store/database.js';

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
      const ids = (
        await db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '<>', 'pending')
          .where('status', 'in', pass.statuses)
          .where('updated_at', '<=', pass.before)
          .orderBy('updated_at')
          .limit(chunk)
          .execute()
      ).map((r) => r.id);
      if (ids.length === 0) break;
      await db.transaction().execute(async (trx) => {
        // Re-checked inside the transaction: a delivery redelivered since the select is kept.
        const gone = await trx
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', ids)
          .where('status', 'in', pass.statuses)
          .where('updated_at', '<=', pass.before)
          .returning('id')
          .execute();
        if (gone.length > 0) {
          await trx
            .deleteFrom('webhook_attempts')
            .where(
              'delivery_id',
              'in',
              gone.map((g) => g.id),
            )
            .execute();
        }
        deliveries += gone.length;
      });
      if (ids.length < chunk) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  let events = 0;
  const eventsBefore = toDbTime(now - Math.min(retention.succeededMs, retention.finishedMs));
  for (;;) {
    const orphans = db
      .selectFrom('webhook_events as e')
      .select('e.id')
      .where('e.created_at', '<=', eventsBefore)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
      )
      .orderBy('e.created_at')
      .limit(chunk);
    const gone = await db.deleteFrom('webhook_events').where('id', 'in', orphans).returning('id').execute();
    events += gone.length;
    if (gone.length < chunk) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { deliveries, events };
}
