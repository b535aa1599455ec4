// A conversation keeps the workflow steps its session went through beside its messages: the nodes
// entered, in order, each with when it was entered and left, the exit it left by, the keys the
// caller pressed in it, a transfer it made and the error it failed with (docs/conversations.md).
// One JSON text column, rewritten whole by the transcript recorder with the update it already
// makes after each message, so a call writes no more statements than before; null on
// conversations from before, which read as no steps.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('steps', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').dropColumn('steps').execute();
}
