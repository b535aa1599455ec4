// SQL for a live session's records (session-recording.ts): its conversation and the messages of
// its transcript (conversation-recorder.ts), and the usage it meters (usage-meter.ts).
import type { Executor } from '../store/database.js';
import { preparedQuery, queryExecute, queryFirst, queryRows } from '../store/prepared.js';
import type { ConversationTable, MessageTable, UsageEventTable } from '../store/schema.js';

// Every session (every call) writes its conversation and messages: kept prepared. The conversation
// insert hands back its id, so the usual case (no conversation yet) is one statement.
const INSERT_CONVERSATION = preparedQuery<{ id: string }>(
  'conversation_insert',
  `insert into conversations (id, workspace_id, project_id, session_id, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6) on conflict (session_id) do nothing returning id`,
);
const CONVERSATION_OF_SESSION = preparedQuery<{ id: string }>(
  'conversation_of_session',
  'select id from conversations where session_id = $1',
);
const INSERT_MESSAGE = preparedQuery<never>(
  'message_insert',
  `insert into messages (id, conversation_id, sequence, role, content, agent_name, spoken_at, latency_ms, latency)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
);
// $3: the workflow steps as JSON when they changed since the last write, else null (kept as they are).
const TOUCH_CONVERSATION = preparedQuery<never>(
  'conversation_touch',
  'update conversations set updated_at = $2, steps = coalesce($3, steps) where id = $1',
);

export const sessionRecordingRepo = {
  /** The session's conversation id, created with `row` unless the session already has one. */
  async ensureConversation(ex: Executor, row: ConversationTable): Promise<string> {
    const { id, workspace_id, project_id, session_id, created_at, updated_at } = row;
    const params = [id, workspace_id, project_id, session_id, created_at, updated_at];
    const inserted = (await queryRows(ex, INSERT_CONVERSATION, params))[0];
    if (inserted) return inserted.id;
    const found = await queryFirst(ex, CONVERSATION_OF_SESSION, [session_id]);
    if (!found) throw new Error(`session ${session_id} has no conversation`);
    return found.id;
  },

  async insertMessage(ex: Executor, row: MessageTable): Promise<void> {
    const { id, conversation_id, sequence, role, content, agent_name, spoken_at, latency_ms, latency } = row;
    const params = [id, conversation_id, sequence, role, content, agent_name, spoken_at, latency_ms, latency];
    await queryExecute(ex, INSERT_MESSAGE, params);
  },

  /** Marks a message the user cut short, with how much of it was heard when that is known. */
  async markInterrupted(
    ex: Executor,
    conversationId: string,
    sequence: number,
    heardChars: number | null,
  ): Promise<void> {
    await ex
      .updateTable('messages')
      .set({ interrupted: 1, heard_chars: heardChars })
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

  /** Marks the conversation changed, writing its workflow steps (JSON) too when given. */
  async touchConversation(
    ex: Executor,
    conversationId: string,
    updatedAt: string,
    steps: string | null = null,
  ): Promise<void> {
    await queryExecute(ex, TOUCH_CONVERSATION, [conversationId, updatedAt, steps]);
  },

  async insertUsage(ex: Executor, row: UsageEventTable): Promise<void> {
    await ex.insertInto('usage_events').values(row).execute();
  },
};
