// After a restart no call may stay live in the store: its media died with the process that ran
// it. closeStaleCalls ends every queued, ringing or in_progress call with a documented reason
// (server_restart by default; shutdown when a stopping process sweeps what its drain left) and
// emits call.ended for each, then ends phone sessions whose call is over. Run it once at start,
// before the SIP listener takes calls, and only where this process is the only SIP node: calls
// carry no owning node yet, so a node would close its neighbours' live calls too.
//
// No voice minutes are metered for a swept call: when the audio stopped is unknown, and billing
// the downtime would overcharge. The call's duration_seconds still runs to the sweep.
import type { HangupReason } from '../../modules/calls/call-lifecycle.js';
import { LIVE_CALL_STATUSES, type CallStatus } from '../../modules/calls/calls.schema.js';
import { endSession } from '../../modules/sessions/session-lifecycle.js';
import { inTransaction } from '../../store/database.js';
import { finishCall, SESSION_END_REASON, type ProgressDeps } from './call-progress.js';

export type SweepReason = Extract<HangupReason, 'server_restart' | 'shutdown'>;

/** The final status of a call swept in `status`: connected calls complete, others fail or cancel. */
export function sweptStatus(status: string, reason: SweepReason): CallStatus {
  if (status === 'in_progress') return 'completed';
  return reason === 'shutdown' ? 'cancelled' : 'failed';
}

export async function closeStaleCalls(
  deps: ProgressDeps,
  reason: SweepReason = 'server_restart',
): Promise<{ calls: number; orphanSessions: number }> {
  const live = await deps.db
    .selectFrom('calls')
    .select(['id', 'status'])
    .where('status', 'in', [...LIVE_CALL_STATUSES])
    .orderBy('created_at')
    .execute();
  let calls = 0;
  for (const c of live) {
    // One transaction per call: each call.ended lands with its own change.
    const ended = await inTransaction(deps.db, (trx) =>
      finishCall(trx, deps, c.id, {
        status: sweptStatus(c.status, reason),
        reason,
        sessionReason: SESSION_END_REASON.shutdown,
        meter: false,
      }),
    );
    if (ended) calls++;
  }
  const orphans = await deps.db
    .selectFrom('sessions')
    .leftJoin('calls', 'calls.id', 'sessions.call_id')
    .selectAll('sessions')
    .where('sessions.channel', '=', 'phone')
    .where('sessions.status', '!=', 'ended')
    .where((eb) => eb.or([eb('calls.id', 'is', null), eb('calls.status', 'not in', [...LIVE_CALL_STATUSES])]))
    .execute();
  let orphanSessions = 0;
  for (const s of orphans) {
    const ended = await inTransaction(deps.db, (trx) =>
      endSession(trx, deps, s, SESSION_END_REASON.shutdown),
    );
    if (ended) orphanSessions++;
  }
  return { calls, orphanSessions };
}
