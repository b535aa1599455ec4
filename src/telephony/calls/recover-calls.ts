// After a restart no call of this node may stay live in the store: its media died with the process
// that ran it. closeStaleCalls ends every queued, ringing or in_progress call of this node
// (node_id = SWITCHBOARD_NODE_ID) with a documented reason (server_restart by default; shutdown
// when a stopping process sweeps what its drain left) and emits call.ended for each, then ends
// phone sessions whose call is over. Run it once at start, before the SIP listener takes calls,
// and at the end of a drain. Other nodes' calls are theirs to end: on one PostgreSQL with several
// SIP nodes, a node restarting must not end calls that are up elsewhere.
//
// Calls without a node_id are swept by every node: rows from before migration 006, and queued
// calls that an API without SIP took and was ending `sip_unavailable` when it died. No node would
// otherwise ever end them. The one exception is an upgrade in progress: a node still on the code
// from before 006 writes no node_id, so its calls are exposed to other nodes' sweeps (as every
// call was before) until it runs this version too.
//
// No voice minutes are metered for a swept call: when the audio stopped is unknown, and billing
// the downtime would overcharge. The call's duration_seconds still runs to the sweep.
import type { HangupReason } from '../../modules/calls/call-lifecycle.js';
import { LIVE_CALL_STATUSES, type CallStatus } from '../../modules/calls/calls.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import { endSession } from '../../modules/sessions/session-lifecycle.js';
import { inTransaction, type Executor } from '../../store/database.js';
import { finishCall, SESSION_END_REASON, type ProgressDeps } from './call-progress.js';

export type SweepReason = Extract<HangupReason, 'server_restart' | 'shutdown'>;

/** What a sweep needs: the store and, from config, whose calls it may end (config.nodeId). */
export type SweepDeps = ProgressDeps & Pick<ServiceDeps, 'config'>;

/** The final status of a call swept in `status`: connected calls complete, others fail or cancel. */
export function sweptStatus(status: string, reason: SweepReason): CallStatus {
  if (status === 'in_progress') return 'completed';
  return reason === 'shutdown' ? 'cancelled' : 'failed';
}

/**
 * The live calls a sweep by `nodeId` ends: its own and those of no node, oldest first. Read
 * through calls_status, so only the calls up right now across the cluster are looked at
 * (migration 006 says why node_id has no index).
 */
export function staleCallsOf(db: Executor, nodeId: string) {
  return db
    .selectFrom('calls')
    .select(['id', 'status'])
    .where('status', 'in', [...LIVE_CALL_STATUSES])
    .where((eb) => eb.or([eb('node_id', '=', nodeId), eb('node_id', 'is', null)]))
    .orderBy('created_at');
}

export async function closeStaleCalls(
  deps: SweepDeps,
  reason: SweepReason = 'server_restart',
): Promise<{ calls: number; orphanSessions: number }> {
  const live = await staleCallsOf(deps.db, deps.config.nodeId).execute();
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
  // Cluster-wide on purpose: a call's ending ends its session in the same transaction (finishCall)
  // and a phone session is only ever created with its call (admission, answerCall), so a phone
  // session still open while its call is over, or gone, is one whose ending was lost, on whatever
  // node. No node is running it, and ending it twice is harmless (endSession skips ended ones).
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
