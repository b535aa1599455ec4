// What the SIP side reports about a call once it exists, each report one transaction: answered
// (→ in_progress, call.started, the phone session active) and ended (→ a final status with its
// hangup_reason, the session ended with the matching end reason, voice minutes metered).
// finishCall is the single way a call ends here, so the outbound state machine and the restart
// recovery end sessions and meter minutes exactly as a hangup does.
import { endCall, markAnswered, type HangupReason } from '../../modules/calls/call-lifecycle.js';
import type { CallStatus } from '../../modules/calls/calls.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import { activateSession, endSession } from '../../modules/sessions/session-lifecycle.js';
import { recordUsage } from '../../modules/usage/usage.service.js';
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import { inTransaction, parseJson, type Executor } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import { insertPhoneSession, loadGraph, type RunnableCall } from './phone-session.js';

export type ProgressDeps = Pick<ServiceDeps, 'db' | 'clock' | 'newId'>;

/**
 * Who ended a call. `caller`/`callee` are the parties of the call as dialled; `remote` is the
 * phone party whichever direction (caller of an inbound call, callee of an outbound one);
 * `workflow` a hangup or end node; `transfer` a completed blind or warm transfer; `shutdown` the
 * drain limit of a shutting-down process.
 */
export type EndedBy = 'caller' | 'callee' | 'remote' | 'workflow' | 'transfer' | 'shutdown';

const CONNECTED_REASON: Record<Exclude<EndedBy, 'remote'>, HangupReason> = {
  caller: 'caller_hangup',
  callee: 'callee_hangup',
  workflow: 'workflow_hangup',
  transfer: 'transferred',
  shutdown: 'shutdown',
};

/** The session end reason that goes with each way of ending a call. */
export const SESSION_END_REASON: Readonly<Record<EndedBy, SessionEndReason>> = {
  caller: 'caller_hangup',
  callee: 'caller_hangup',
  remote: 'caller_hangup',
  workflow: 'completed',
  transfer: 'transferred',
  shutdown: 'client_disconnected',
};

/** The status and hangup_reason an ending by `by` gives a call that is in `status` now. */
export function endingOf(
  call: Pick<CallTable, 'status' | 'direction'>,
  by: EndedBy,
): { status: CallStatus; reason: HangupReason } {
  const who = by === 'remote' ? (call.direction === 'inbound' ? 'caller' : 'callee') : by;
  if (call.status === 'in_progress') return { status: 'completed', reason: CONNECTED_REASON[who] };
  // Not connected yet: the call ends `cancelled` (spec 3.1, "ended before connecting").
  return { status: 'cancelled', reason: who === 'caller' ? 'caller_cancelled' : CONNECTED_REASON[who] };
}

/**
 * Ends a live call inside `trx`: the call record (call.ended), its session (session.ended) and,
 * when `meter` and the call was connected, voice_minutes = duration / 60 under the provider of
 * the trunk of the call's number (null once the number is gone). Null if it had ended already.
 */
export async function finishCall(
  trx: Executor,
  deps: ProgressDeps,
  callId: string,
  ending: { status: CallStatus; reason: HangupReason; sessionReason: SessionEndReason; meter: boolean },
): Promise<CallTable | null> {
  const call = await endCall(trx, deps, callId, ending.status, ending.reason);
  if (!call) return null;
  const row = await trx.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();
  if (row.session_id) {
    const session = await trx
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', row.session_id)
      .executeTakeFirst();
    if (session) await endSession(trx, deps, session, ending.sessionReason);
  }
  const seconds = row.duration_seconds ?? 0;
  if (ending.meter && row.started_at !== null && seconds > 0) {
    await recordUsage(trx, {
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      metric: 'voice_minutes',
      provider: await trunkProvider(trx, row.phone_number_id),
      quantity: seconds / 60,
      at: deps.clock.now(),
    });
  }
  return row;
}

async function trunkProvider(ex: Executor, numberId: string | null): Promise<string | null> {
  if (numberId === null) return null;
  const r = await ex
    .selectFrom('phone_numbers')
    .innerJoin('sip_trunks', 'sip_trunks.id', 'phone_numbers.sip_trunk_id')
    .select('sip_trunks.provider')
    .where('phone_numbers.id', '=', numberId)
    .executeTakeFirst();
  return r?.provider ?? null;
}

/**
 * The call was answered (inbound: we sent 200 and got the ACK; outbound: 2xx and our ACK):
 * in_progress with call.started, and its phone session active, created first for an outbound call
 * (outbound sessions are made on answer, so an unanswered call runs no workflow). Returns what the
 * media side needs to run the workflow, or null when the call was not waiting for an answer.
 */
export async function answerCall(
  trx: Executor,
  deps: ProgressDeps,
  callId: string,
): Promise<RunnableCall | null> {
  const before = await trx.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirst();
  if (!before || (before.status !== 'queued' && before.status !== 'ringing')) return null;
  if (before.workflow_id === null || before.workflow_version === null) {
    throw new Error(`call ${callId} has no workflow to run`);
  }
  const variables = parseJson<Record<string, unknown>>(before.variables, {});
  // Answering-machine detection ran before the answer is recorded (call-recording.ts): the
  // workflow reads its verdict as the variable answered_by.
  if (before.answered_by) variables.answered_by = before.answered_by;
  const workflow = { id: before.workflow_id, version: before.workflow_version };
  let sessionId = before.session_id;
  if (sessionId === null) sessionId = (await insertPhoneSession(trx, deps, before, workflow, variables)).id;
  if (!(await markAnswered(trx, deps, callId))) return null;
  await activateSession(trx, deps, sessionId);
  const call = await trx.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow();
  const session = await trx
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const graph = await loadGraph(trx, workflow.id, workflow.version);
  if (!graph) throw new Error(`workflow ${workflow.id} version ${workflow.version} is missing`);
  return { call, session, workflowVersion: workflow.version, graph, variables };
}

/** The functions the SIP side calls as a call progresses; each runs in its own transaction. */
export class CallProgress {
  constructor(private readonly deps: ProgressDeps) {}

  answered(callId: string): Promise<RunnableCall | null> {
    return inTransaction(this.deps.db, (trx) => answerCall(trx, this.deps, callId));
  }

  /** Ends the call as `by` ended it; null when it had ended already (nothing is emitted twice). */
  ended(callId: string, by: EndedBy): Promise<CallTable | null> {
    return inTransaction(this.deps.db, async (trx) => {
      const call = await trx
        .selectFrom('calls')
        .select(['status', 'direction'])
        .where('id', '=', callId)
        .executeTakeFirst();
      if (!call) return null;
      const { status, reason } = endingOf(call, by);
      return finishCall(trx, this.deps, callId, {
        status,
        reason,
        sessionReason: SESSION_END_REASON[by],
        meter: true,
      });
    });
  }
}
