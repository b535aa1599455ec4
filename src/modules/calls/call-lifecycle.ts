// The call state machine of spec 3.1, written once for the API and the call controller:
// queued → ringing → in_progress → completed, or a failure outcome from any live state.
// call.started and call.ended are written to the outbox in the same transaction as the change.
import { emitEvent } from '../../events/outbox.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import { apiTime, secondsBetween } from '../../shared/time.js';
import { parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { FINAL_CALL_STATUSES, type Call, type CallStatus } from './calls.schema.js';

/**
 * Every hangup_reason the service sets. The status each goes with, and the states it is entered
 * from, are tabulated in docs/calls.md (the one place to keep in step with this list).
 */
export const HANGUP_REASONS = [
  'callee_hangup',
  'caller_hangup',
  'workflow_hangup',
  'transferred',
  'quota_exhausted',
  'ring_timeout',
  'busy',
  'trunk_auth_failed',
  'trunk_unreachable', // outbound: the trunk's health checks find its termination host down
  'invalid_number',
  'carrier_error',
  'sip_unavailable',
  'no_dispatch_rule',
  'caller_cancelled',
  'shutdown',
  'server_restart', // found live after a restart (src/telephony/calls/recover-calls.ts)
  'workflow_unpublished', // inbound: the winning rule's workflow has no published version
] as const;
export type HangupReason = (typeof HANGUP_REASONS)[number];

export function toCall(row: CallTable): Call {
  return {
    id: row.id,
    direction: row.direction,
    status: row.status,
    from: row.from_number,
    to: row.to_number,
    project_id: row.project_id,
    workflow_id: row.workflow_id,
    workflow_version: row.workflow_version,
    session_id: row.session_id,
    duration_seconds: row.duration_seconds,
    hangup_reason: row.hangup_reason,
    metadata: parseJson(row.metadata, {}),
    started_at: apiTime(row.started_at),
    ended_at: apiTime(row.ended_at),
    created_at: apiTime(row.created_at),
    recording_url: row.recording_url ?? null,
    recording_error: row.recording_error ?? null,
    answered_by: row.answered_by ?? null,
  };
}

type Deps = Pick<ServiceDeps, 'clock' | 'newId'>;

async function load(ex: Executor, id: string): Promise<CallTable> {
  return ex.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** queued → ringing (180/183 received). */
export async function markRinging(ex: Executor, deps: Deps, id: string): Promise<boolean> {
  const r = await ex
    .updateTable('calls')
    .set({ status: 'ringing', updated_at: toDbTime(deps.clock.now()) })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** → in_progress (answered and ACKed); emits call.started. */
export async function markAnswered(ex: Executor, deps: Deps, id: string): Promise<Call | null> {
  const now = deps.clock.now();
  const at = toDbTime(now);
  const r = await ex
    .updateTable('calls')
    .set({ status: 'in_progress', started_at: at, updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'ringing'])
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return null;
  const row = await load(ex, id);
  const call = toCall(row);
  // Metrics (src/ops): set-up time runs from the row's creation, the INVITE's arrival or POST /calls.
  const setupSeconds = Math.max(0, now - Date.parse(row.created_at)) / 1000;
  emitTelemetry({ kind: 'call.answered', direction: row.direction, setupSeconds });
  await emitEvent(
    ex,
    {
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      type: 'call.started',
      data: { ...call },
      now,
    },
    deps.newId,
  );
  return call;
}

/** Ends a live call with a final status and reason; emits call.ended. Null if it had ended already. */
export async function endCall(
  ex: Executor,
  deps: Deps,
  id: string,
  status: CallStatus,
  reason: HangupReason,
  /** End it only from these statuses (a cancel must not end a call answered meanwhile). */
  from?: readonly CallStatus[],
): Promise<Call | null> {
  if (!FINAL_CALL_STATUSES.includes(status)) throw new Error(`${status} is not a final call status`);
  const row = await load(ex, id);
  if (FINAL_CALL_STATUSES.includes(row.status as CallStatus)) return null;
  // The update below only applies while the status is still the one read here, so this check and
  // the transition cannot be split by a concurrent answer.
  if (from && !from.includes(row.status as CallStatus)) return null;
  const now = deps.clock.now();
  const at = toDbTime(now);
  const duration = row.started_at ? secondsBetween(row.started_at, at) : 0;
  const r = await ex
    .updateTable('calls')
    .set({ status, hangup_reason: reason, ended_at: at, duration_seconds: duration, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return null;
  const call = toCall({ ...row, status, hangup_reason: reason, ended_at: at, duration_seconds: duration });
  emitTelemetry({ kind: 'call.ended', direction: row.direction, status, reason });
  await emitEvent(
    ex,
    { workspaceId: row.workspace_id, projectId: row.project_id, type: 'call.ended', data: { ...call }, now },
    deps.newId,
  );
  return call;
}
