// SQL for conversations and their messages, always scoped by workspace (messages through their
// conversation, which the caller has already found in the workspace).
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import type { ConversationTable, MessageTable } from '../../store/schema.js';

export interface ConversationFilters {
  projectId?: string;
  sessionId?: string;
  /** created_at >= this stored timestamp */
  createdFrom?: string;
  /** created_at < this stored timestamp */
  createdBefore?: string;
}

export type ConversationRow = ConversationTable & { message_count: number | string | bigint };

export const conversationsRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<ConversationRow | undefined> {
    return ex
      .selectFrom('conversations')
      .selectAll('conversations')
      .select((eb) =>
        eb
          .selectFrom('messages')
          .whereRef('messages.conversation_id', '=', 'conversations.id')
          .select(eb.fn.countAll<number>().as('n'))
          .as('message_count'),
      )
      .where('conversations.workspace_id', '=', workspaceId)
      .where('conversations.id', '=', id)
      .executeTakeFirst() as Promise<ConversationRow | undefined>;
  },

  list(ex: Executor, workspaceId: string, filters: ConversationFilters, page: PageParams) {
    let base = ex.selectFrom('conversations').where('conversations.workspace_id', '=', workspaceId);
    if (filters.projectId !== undefined)
      base = base.where('conversations.project_id', '=', filters.projectId);
    if (filters.sessionId !== undefined)
      base = base.where('conversations.session_id', '=', filters.sessionId);
    if (filters.createdFrom !== undefined)
      base = base.where('conversations.created_at', '>=', filters.createdFrom);
    if (filters.createdBefore !== undefined) {
      base = base.where('conversations.created_at', '<', filters.createdBefore);
    }
    return paginate(
      base,
      page,
      (qb) =>
        qb
          .selectAll('conversations')
          .select((eb) =>
            eb
              .selectFrom('messages')
              .whereRef('messages.conversation_id', '=', 'conversations.id')
              .select(eb.fn.countAll<number>().as('n'))
              .as('message_count'),
          ),
      { created: 'conversations.created_at', id: 'conversations.id' },
    ) as Promise<{ rows: ConversationRow[]; total: number }>;
  },

  messages(ex: Executor, conversationId: string): Promise<MessageTable[]> {
    return ex
      .selectFrom('messages')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('sequence', 'asc')
      .execute();
  },
};
