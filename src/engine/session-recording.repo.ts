// SQL for a live session's records (session-recording.ts): its conversation and the messages of
// its transcript (conversation-recorder.ts), and the usage it meters (usage-meter.ts).
import type { Executor } from '../store/database.js';
import type { ConversationTable, MessageTable, UsageEventTable } from '../store/schema.js';

export const sessionRecordingRepo = {
  /** The session's conversation id, created with `row` unless the session already has one. */
  async ensureConversation(ex: Executor, row: ConversationTable): Promise<string> {
    await ex
      .insertInto('conversations')
      .values(row)
      .onConflict((oc) => oc.column('session_id').doNothing())
      .execute();
    const found = await ex
      .selectFrom('conversations')
      .select(['id'])
      .where('session_id', '=', row.session_id)
      .executeTakeFirstOrThrow();
    return found.id;
  },

  async insertMessage(ex: Executor, row: MessageTable): Promise<void> {
    await ex.insertInto('messages').values(row).execute();
  },

  /** Marks a message the user cut short. */
  async markInterrupted(ex: Executor, conversationId: string, sequence: number): Promise<void> {
    await ex
      .updateTable('messages')
      .set({ interrupted: 1 })
      .where('conversation_id', '=', conversationId)
      .where('sequence', '=', sequence)
      .execute();
  },

  /** Names the agent of earlier messages, once a second agent has spoken in the conversation. */
  async nameAgent(
    ex: Executor,
    conversationId: string,
    agentName: string,
    sequences: number[],
  ): Promise<void> {
    await ex
      .updateTable('messages')
      .set({ agent_name: agentName })
      .where('conversation_id', '=', conversationId)
      .where('sequence', 'in', sequences)
      .execute();
  },

  async touchConversation(ex: Executor, conversationId: string, updatedAt: string): Promise<void> {
    await ex
      .updateTable('conversations')
      .set({ updated_at: updatedAt })
      .where('id', '=', conversationId)
      .execute();
  },

  async insertUsage(ex: Executor, row: UsageEventTable): Promise<void> {
    await ex.insertInto('usage_events').values(row).execute();
  },
};
