// Ending a session, wherever it happens (DELETE, the engine finishing, a call hanging up): the row
// becomes `ended` and `session.ended` is written to the outbox in the same transaction.
import { emitEvent, type EmitEventInput } from '../../events/outbox.js';
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import { apiTime, secondsBetween } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { SessionTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import type { Session } from './sessions.schema.js';
import { sessionsRepo } from './sessions.repo.js';

export function toSession(row: SessionTable): Session {
  return {
    id: row.id,
    project_id: row.project_id,
    workflow_id: row.workflow_id,
    workflow_version: row.workflow_version,
    channel: row.channel,
    status: row.status,
    call_id: row.call_id,
    metadata: parseJson(row.metadata, {}),
    end_reason: row.end_reason,
    duration_seconds:
      row.ended_at === null
        ? null
        : row.started_at === null
          ? 0
          : secondsBetween(row.started_at, row.ended_at),
    started_at: apiTime(row.started_at),
    ended_at: apiTime(row.ended_at),
    created_at: apiTime(row.created_at),
  };
}

/**
 * Ends a live session inside the caller's transaction. Returns the ended session, or null when it
 * had already ended (nothing is emitted twice).
 */
export async function endSession(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'newId'>,
  row: SessionTable,
  reason: SessionEndReason,
): Promise<Session | null> {
  if (row.status === 'ended') return null;
  const now = deps.clock.now();
  const endedAt = toDbTime(now);
  if (!(await sessionsRepo.end(trx, row.id, reason, endedAt))) return null;
  const session = toSession({ ...row, status: 'ended', end_reason: reason, ended_at: endedAt });
  await emitEvent(
    trx,
    {
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      type: 'session.ended',
      data: { ...session },
      now,
    },
    deps.newId,
  );
  return session;
}

/**
 * Ends a live session by id inside the caller's transaction (one statement changes and reads it):
 * the ended session and its session.ended, for the caller to write with its own events
 * (emitEvents); null when it had ended already, does not exist, or is not the session of `callId`.
 */
export async function endSessionById(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock'>,
  id: string,
  reason: SessionEndReason,
  callId: string,
): Promise<{ session: Session; event: EmitEventInput } | null> {
  const now = deps.clock.now();
  const row = await sessionsRepo.endOfCall(trx, id, callId, reason, toDbTime(now));
  if (!row) return null;
  const session = toSession(row);
  const event: EmitEventInput = {
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    type: 'session.ended',
    data: { ...session },
    now,
  };
  return { session, event };
}

/** What a new session is made of; the rest (id, status, times) every new session shares. */
export type NewSession = Pick<
  SessionTable,
  | 'workspace_id'
  | 'project_id'
  | 'workflow_id'
  | 'workflow_version'
  | 'channel'
  | 'variables'
  | 'metadata'
  | 'call_id'
>;

/** Inserts a pending session (inside the caller's transaction): minted, a call's, or a CLI chat. */
export async function insertPendingSession(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'newId'>,
  fields: NewSession,
): Promise<SessionTable> {
  const now = toDbTime(deps.clock.now());
  const session: SessionTable = {
    id: deps.newId(),
    ...fields,
    status: 'pending',
    end_reason: null,
    started_at: null,
    ended_at: null,
    created_at: now,
    updated_at: now,
  };
  await sessionsRepo.insert(trx, session);
  return session;
}

/** Marks a pending session active when its first participant joins. */
export async function activateSession(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock'>,
  id: string,
): Promise<boolean> {
  return sessionsRepo.activate(trx, id, toDbTime(deps.clock.now()));
}

/**
 * Ends web sessions minted but never joined once their join token has expired (nobody can join
 * them any more): status `ended`, end_reason `timeout`, session.ended emitted. Returns how many.
 */
export async function expireUnjoinedSessions(
  deps: Pick<ServiceDeps, 'db' | 'clock' | 'newId' | 'config'>,
): Promise<number> {
  const cutoff = toDbTime(deps.clock.now() - deps.config.joinTokenTtlSeconds * 1000);
  const stale = await sessionsRepo.unjoinedWebSince(deps.db, cutoff, 500);
  let ended = 0;
  for (const row of stale) {
    const done = await inTransaction(deps.db, (trx) => endSession(trx, deps, row, 'timeout'));
    if (done) ended++;
  }
  return ended;
}
