// Who ended a call, and the status, hangup_reason and session end reason that follow: pure
// tables the call controller and the sweeps read before they end a call (call-lifecycle endCall).
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import type { CallTable } from '../../store/schema.js';
import type { HangupReason } from './call-lifecycle.js';
import type { CallStatus } from './calls.schema.js';

/**
 * Who ended a call. `caller`/`callee` are the parties of the call as dialled; `remote` is the
 * phone party whichever direction (caller of an inbound call, callee of an outbound one);
 * `workflow` a hangup or end node; `transfer` a completed blind or warm transfer; `shutdown` the
 * drain limit of a shutting-down process; `media_timeout` the far end sent no RTP or RTCP for
 * MEDIA_TIMEOUT_SECONDS (MEDIA_HOLD_TIMEOUT_SECONDS while it held the call: it vanished without a
 * BYE) and we hung up.
 */
export type EndedBy = 'caller' | 'callee' | 'remote' | 'workflow' | 'transfer' | 'shutdown' | 'media_timeout';

const CONNECTED_REASON: Record<Exclude<EndedBy, 'remote'>, HangupReason> = {
  caller: 'caller_hangup',
  callee: 'callee_hangup',
  workflow: 'workflow_hangup',
  transfer: 'transferred',
  shutdown: 'shutdown',
  media_timeout: 'media_timeout',
};

/** The session end reason that goes with each way of ending a call. */
export const SESSION_END_REASON: Readonly<Record<EndedBy, SessionEndReason>> = {
  caller: 'caller_hangup',
  callee: 'caller_hangup',
  remote: 'caller_hangup',
  workflow: 'completed',
  transfer: 'transferred',
  shutdown: 'client_disconnected',
  // The phone party is gone, as after a BYE: nothing failed on our side.
  media_timeout: 'caller_hangup',
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

/** Why a sweep ends the live calls of a node: it restarted, or its drain left them. */
export type SweepReason = Extract<HangupReason, 'server_restart' | 'shutdown'>;

/** The final status of a call swept in `status`: connected calls complete, others fail or cancel. */
export function sweptStatus(status: string, reason: SweepReason): CallStatus {
  if (status === 'in_progress') return 'completed';
  return reason === 'shutdown' ? 'cancelled' : 'failed';
}
