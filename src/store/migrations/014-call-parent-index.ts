// An index on calls.parent_call_id: a call's page lists the legs its workflow dialled
// (GET /calls?parent_call_id=…) on every view, which without it reads every call of the workspace.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('calls_parent').on('calls').column('parent_call_id').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('calls_parent').execute();
}
