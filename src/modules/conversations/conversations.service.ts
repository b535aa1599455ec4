// Conversations are read-only transcripts, one per session, written live by the engine's
// transcript recorder. Here they are only listed and read, always inside the caller's workspace.
import { pageParams, type PageParams } from '../../shared/paging.js';
import { addDays, parseCalendarDate } from '../../shared/calendar-dates.js';
import { FieldErrorBag, NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { toDbTime } from '../../store/database.js';
import type { MessageTable } from '../../store/schema.js';
import type { RecordedStep } from '../../engine/conversation-recorder.js';
import type { Actor, ServiceDeps } from '../context.js';
import { conversationsRepo, type ConversationFilters, type ConversationRow } from './conversations.repo.js';
import type {
  Conversation,
  ConversationListQuery,
  ConversationStep,
  ConversationWithMessages,
  Message,
  MessageLatency,
} from './conversations.schema.js';

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    project_id: row.project_id,
    session_id: row.session_id,
    message_count: Number(row.message_count ?? 0),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

/**
 * `agent_name` tells agents apart, so it only appears when two or more distinct agents spoke;
 * then every message carries it (null where no agent wrote the message, e.g. the caller's turns).
 */
export function toMessages(rows: MessageTable[]): Message[] {
  const agents = new Set(rows.map((m) => m.agent_name).filter((a): a is string => a !== null));
  const named = agents.size > 1;
  return rows.map((m) => ({
    sequence: Number(m.sequence),
    role: m.role,
    content: m.content,
    ...(named ? { agent_name: m.agent_name } : {}),
    spoken_at: apiTime(m.spoken_at),
    latency_ms: m.latency_ms === null ? null : Math.round(Number(m.latency_ms)),
    latency: m.latency === null || m.latency === undefined ? null : (JSON.parse(m.latency) as MessageLatency),
    interrupted: Number(m.interrupted ?? 0) === 1,
    heard_chars: m.heard_chars === null || m.heard_chars === undefined ? null : Number(m.heard_chars),
  }));
}

/** The stored steps (JSON, null before any) as the API shows them: times to the second. */
export function toSteps(stored: string | null | undefined): ConversationStep[] {
  if (!stored) return [];
  return (JSON.parse(stored) as RecordedStep[]).map((s) => ({
    node_id: s.node_id,
    node_type: s.node_type,
    entered_at: apiTime(s.entered_at),
    exited_at: apiTime(s.exited_at),
    handle: s.handle,
    keys: s.keys,
    transfer: s.transfer,
    error: s.error,
  }));
}

/** from_date/to_date as a half-open range on created_at; both inclusive whole UTC days. */
export function conversationDateFilters(query: ConversationListQuery): ConversationFilters {
  const bag = new FieldErrorBag();
  const from = query.from_date === undefined ? undefined : parseCalendarDate(query.from_date);
  const to = query.to_date === undefined ? undefined : parseCalendarDate(query.to_date);
  if (from === null) bag.add('from_date', 'must be a real date of the form YYYY-MM-DD');
  if (to === null) bag.add('to_date', 'must be a real date of the form YYYY-MM-DD');
  bag.throwIfAny();
  if (from != null && to != null && from > to) {
    throw ValidationError.field('from_date', 'must not be after to_date');
  }
  return {
    createdFrom: from != null ? toDbTime(from) : undefined,
    createdBefore: to != null ? toDbTime(addDays(to, 1)) : undefined,
  };
}

export class ConversationsService {
  constructor(private readonly deps: ServiceDeps) {}

  async list(actor: Actor, query: ConversationListQuery, page: PageParams = pageParams({})) {
    const filters: ConversationFilters = {
      ...conversationDateFilters(query),
      projectId: query.project_id,
      sessionId: query.session_id,
    };
    const { rows, total } = await conversationsRepo.list(this.deps.db, actor.workspaceId, filters, page);
    return { items: rows.map(toConversation), total };
  }

  async get(actor: Actor, id: string): Promise<ConversationWithMessages> {
    const row = await conversationsRepo.find(this.deps.db, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Conversation');
    const messages = await conversationsRepo.messages(this.deps.db, row.id);
    return { ...toConversation(row), messages: toMessages(messages), steps: toSteps(row.steps) };
  }
}
