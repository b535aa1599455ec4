// An assistant message the user cut short (speech, a key or typed text during its playback) is
// marked: its content is what was to be said, not all of which was heard. An integer boolean,
// default 0, so the messages from before read as not interrupted.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('interrupted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('interrupted').execute();
}
