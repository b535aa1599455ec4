// Each assistant message after a user turn keeps where its latency went (`latency`, a JSON object:
// endpointing_ms, stt_ms, llm_first_token_ms, tts_first_audio_ms, first_packet_ms) beside
// latency_ms. Text, as the other JSON columns here are, so both dialects store it alike.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Nullable, no default: messages from before stay null, and adding it rewrites no table.
  await db.schema.alterTable('messages').addColumn('latency', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('latency').execute();
}
