// How much of an interrupted assistant message the user heard: the length of its prefix that was
// played (an estimate from the audio sent, ending on a whole word). Null when not interrupted,
// when the service could not tell, and on the messages from before.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('heard_chars', 'integer').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('heard_chars').execute();
}
