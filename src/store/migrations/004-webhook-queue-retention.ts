// Webhook delivery queue and log retention indexes.
//  - The worker's queue scan reads a partial index of pending rows only, ordered by due time and
//    carrying the endpoint (so a claim that skips endpoints at their concurrency cap filters in the
//    index). Finished rows leave the index instead of piling up in it, which also makes recording
//    a finished delivery cheaper (one index entry deleted, none inserted).
//  - Pruning the delivery log finds finished deliveries by age, and old events by creation time.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_due').ifExists().execute();
  await db.schema
    .createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'endpoint_id', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_finished')
    .on('webhook_deliveries')
    .column('updated_at')
    .where(sql.ref('status'), '<>', 'pending')
    .execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_events_created').ifExists().execute();
  await db.schema.dropIndex('webhook_deliveries_finished').ifExists().execute();
  await db.schema.dropIndex('webhook_deliveries_pending').ifExists().execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
