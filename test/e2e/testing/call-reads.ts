// Reads of an e2e node's store (test/support/call-node.ts): polling until a value shows, a call
// row by id or once it has finished, the events of the outbox, a session's transcript.
import type { CallTable } from '../../../src/store/schema.js';
import type { RtpSession } from '../../../src/telephony/media/rtp-session.js';
import type { CallNode, Loose } from '../../support/call-node.js';

/** Polls the store (no timers of its own beyond a short yield) until `read` gives a value. */
export async function eventually<T>(read: () => Promise<T | undefined | null | false>): Promise<T> {
  for (;;) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function callById(n: CallNode, id: string): Promise<CallTable | undefined> {
  return n.store.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The call row once it is completed: the call `id`, or without one the store's only call (the
 * first row of `calls`, for suites that place one call and never learn its id).
 */
/**
 * The RtpSession of the node's only call, once the call is live. Held on to by the test, its
 * counters outlive the call.
 */
export function liveCallRtp(n: CallNode): Promise<RtpSession> {
  return eventually(async () => {
    const row = await n.store.db.selectFrom('calls').select('id').executeTakeFirst();
    return row ? n.node.calls.find(row.id)?.rtp : undefined;
  });
}

export function finishedCall(n: CallNode, id?: string): Promise<CallTable> {
  return eventually(async () => {
    const row =
      id === undefined
        ? await n.store.db.selectFrom('calls').selectAll().executeTakeFirst()
        : await callById(n, id);
    return row?.status === 'completed' ? row : undefined;
  });
}

/** The call.* / session.* / workflow.* events of the store, parsed, oldest first. */
export async function storedEvents(n: CallNode): Promise<{ type: string; data: Record<string, Loose> }[]> {
  const rows = await n.store.db
    .selectFrom('webhook_events')
    .select(['type', 'body'])
    .orderBy('created_at')
    .execute();
  return rows.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, Loose> });
}

/** The transcript of a session: role and text, in order. */
export async function transcript(
  n: CallNode,
  sessionId: string,
): Promise<{ role: string; content: string }[]> {
  return n.store.db
    .selectFrom('messages')
    .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
    .select(['messages.role', 'messages.content'])
    .where('conversations.session_id', '=', sessionId)
    .orderBy('messages.sequence')
    .execute();
}
