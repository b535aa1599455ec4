// Each call records the node that handles it (`node_id`, SWITCHBOARD_NODE_ID): the node whose
// process holds its media, because it admitted or dialled it. The restart and shutdown sweeps
// (src/modules/calls/call-sweep.ts) end only their own node's live calls, and those with no
// node: rows from before this migration, which any node may have left.
//
// No new index: the sweep looks up live calls (status queued, ringing or in_progress) through
// calls_status (001), which reaches only the calls up right now across the cluster, however long
// the history; node_id is then checked on those few rows. An index with node_id would be one more
// entry to write on every call insert and status change, for a query that runs twice per process.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Nullable and without a default: old rows stay null (swept by any node), and adding it is a
  // catalog change on PostgreSQL and SQLite alike, not a table rewrite. Neither the SQLite
  // generated api_json nor the PostgreSQL trigger that renders it (005) names the column, so the
  // API does not show it.
  await db.schema.alterTable('calls').addColumn('node_id', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('node_id').execute();
}
