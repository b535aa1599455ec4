// The call state machine of spec 3.1, written once for the API and the call controller:
// queued → ringing → in_progress → completed, or a failure outcome from any live state.
// call.started and call.ended are written to the outbox in the same transaction as the change,
// and endCall is the one way a call ends (its session and its voice minutes with it).
import { emitEvent, emitEvents, type EmitEventInput } from '../../events/outbox.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import { apiTime, secondsBetween } from '../../shared/time.js';
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import { parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { endSessionById } from '../sessions/session-lifecycle.js';
import { sipTrunksRepo } from '../sip-trunks/sip-trunks.repo.js';
import { recordUsage } from '../usage/usage.service.js';
import { callsRepo } from './calls.repo.js';
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
  'server_restart', // found live after a restart (call-sweep.ts)
  'workflow_unpublished', // inbound: the winning rule's workflow has no published version
  'source_not_allowed', // inbound, registered number: the source is not in its trunk's allowed_ips (403)
  'media_unsupported', // inbound, registered number: no format of the offer can be carried (488)
  'no_route', // a dialled leg (dial node, warm transfer): no trunk to carry its tel: destination
  'media_timeout', // connected: no RTP or RTCP from the far end for MEDIA_TIMEOUT_SECONDS (MEDIA_HOLD_TIMEOUT_SECONDS held); we sent BYE
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
    parent_call_id: row.parent_call_id ?? null,
  };
}

type Deps = Pick<ServiceDeps, 'clock' | 'newId' | 'dispatchCache'>;

/** queued → ringing (180/183 received). */
export function markRinging(ex: Executor, deps: Deps, id: string): Promise<boolean> {
  return callsRepo.markRinging(ex, id, toDbTime(deps.clock.now()));
}

/** → in_progress (answered and ACKed); emits call.started. */
export async function markAnswered(ex: Executor, deps: Deps, id: string): Promise<Call | null> {
  const row = await answerRow(ex, deps, id);
  return row ? toCall(row) : null;
}

/**
 * markAnswered, handing back the call's row as it now is (one statement updates and reads it);
 * undefined when the call was neither queued nor ringing. A call without a session yet gets the
 * one `newSession` inserts (an outbound call's, made on answer), before call.started names it.
 */
export async function answerRow(
  ex: Executor,
  deps: Deps,
  id: string,
  newSession?: (call: CallTable) => Promise<string>,
): Promise<CallTable | undefined> {
  const now = deps.clock.now();
  const at = toDbTime(now);
  let row = await callsRepo.answer(ex, id, at);
  if (!row) return undefined;
  if (row.session_id === null && newSession) {
    const sessionId = await newSession(row);
    await callsRepo.setSession(ex, id, sessionId, at);
    row = { ...row, session_id: sessionId, updated_at: at };
  }
  // Metrics (src/ops): set-up time runs from the row's creation, the INVITE's arrival or POST /calls.
  const setupSeconds = Math.max(0, now - Date.parse(row.created_at)) / 1000;
  emitTelemetry({ kind: 'call.answered', direction: row.direction, setupSeconds });
  await emitEvent(
    ex,
    {
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      type: 'call.started',
      data: { ...toCall(row) },
      now,
    },
    deps.newId,
  );
  return row;
}

/** How a call ends: its final status and reason, and what goes with them. */
export interface CallEnding {
  status: CallStatus;
  reason: HangupReason;
  /** The end reason of the call's phone session, if it has one (default `failed`). */
  sessionReason?: SessionEndReason;
  /** Meter voice_minutes for a connected call (a swept or refused call is not metered). */
  meter?: boolean;
  /** End it only from these statuses (a cancel must not end a call answered meanwhile). */
  from?: readonly CallStatus[];
}

/**
 * The one way a call ends, inside the caller's transaction: the call record gets its final status
 * and reason (call.ended), its phone session ends (session.ended; not a web session that dialled it) and, when `meter` and the call
 * was connected, voice_minutes = duration / 60 are recorded under the provider of the trunk of the
 * call's number (null once the number is gone). Returns the ended row; null if it had ended
 * already (nothing is emitted twice) or was not in one of `from`.
 */
export async function endCall(
  ex: Executor,
  deps: Deps,
  id: string,
  ending: CallEnding,
  known?: CallTable,
): Promise<CallTable | null> {
  const { status, reason } = ending;
  if (!FINAL_CALL_STATUSES.includes(status)) throw new Error(`${status} is not a final call status`);
  const row = known ?? (await callsRepo.load(ex, id));
  if (FINAL_CALL_STATUSES.includes(row.status as CallStatus)) return null;
  // The update below only applies while the status is still the one read here, so this check and
  // the transition cannot be split by a concurrent answer.
  if (ending.from && !ending.from.includes(row.status as CallStatus)) return null;
  const now = deps.clock.now();
  const at = toDbTime(now);
  const duration = row.started_at ? secondsBetween(row.started_at, at) : 0;
  const fields = { status, hangup_reason: reason, ended_at: at, duration_seconds: duration };
  if (!(await callsRepo.end(ex, id, row.status, fields))) return null;
  const ended: CallTable = { ...row, ...fields, updated_at: at };
  const call = toCall(ended);
  emitTelemetry({ kind: 'call.ended', direction: row.direction, status, reason });
  const events: EmitEventInput[] = [
    { workspaceId: row.workspace_id, projectId: row.project_id, type: 'call.ended', data: { ...call }, now },
  ];
  if (row.session_id) {
    // A call's own phone session ends with it; a web session that dialled the call (a leg's
    // session_id, modules/calls/dial-legs.ts) goes on.
    const reason = ending.sessionReason ?? 'failed';
    const session = await endSessionById(ex, deps, row.session_id, reason, row.id);
    if (session) events.push(session.event);
  }
  await emitEvents(ex, events, deps.newId);
  if (ending.meter && row.started_at !== null && duration > 0) {
    await recordUsage(ex, {
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      metric: 'voice_minutes',
      provider: await trunkProvider(ex, deps, row.phone_number_id),
      quantity: duration / 60,
      at: now,
    });
  }
  return ended;
}

/** The provider of the trunk of the call's number (null once the number is gone), cached per number. */
async function trunkProvider(ex: Executor, deps: Deps, numberId: string | null): Promise<string | null> {
  if (numberId === null) return null;
  const cache = deps.dispatchCache;
  const cached = cache?.provider(numberId);
  if (cached !== undefined) return cached;
  const stamp = cache?.stamp ?? 0;
  const provider = (await sipTrunksRepo.ofNumber(ex, numberId))?.provider ?? null;
  cache?.setProvider(numberId, provider, stamp);
  return provider;
}
