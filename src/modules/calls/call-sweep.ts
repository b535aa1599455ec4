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
import { inTransaction } from '../../store/database.js';
import type { ServiceDeps } from '../context.js';
import { endSession } from '../sessions/session-lifecycle.js';
import { sessionsRepo } from '../sessions/sessions.repo.js';
import { SESSION_END_REASON, sweptStatus, type SweepReason } from './call-endings.js';
import { endCall } from './call-lifecycle.js';
import { callsRepo } from './calls.repo.js';

export type { SweepReason } from './call-endings.js';
export { sweptStatus } from './call-endings.js';

/** What a sweep needs: the store and, from config, whose calls it may end (config.nodeId). */
export type SweepDeps = Pick<ServiceDeps, 'db' | 'clock' | 'newId' | 'config'>;

/** The live calls a sweep by `nodeId` ends (calls.repo.ts says which). */
export const staleCallsOf = callsRepo.staleOf;

export async function closeStaleCalls(
  deps: SweepDeps,
  reason: SweepReason = 'server_restart',
): Promise<{ calls: number; orphanSessions: number }> {
  const live = await callsRepo.staleOf(deps.db, deps.config.nodeId).execute();
  let calls = 0;
  for (const c of live) {
    // One transaction per call: each call.ended lands with its own change.
    const ended = await inTransaction(deps.db, (trx) =>
      endCall(trx, deps, c.id, {
        status: sweptStatus(c.status, reason),
        reason,
        sessionReason: SESSION_END_REASON.shutdown,
        meter: false,
      }),
    );
    if (ended) calls++;
  }
  // Cluster-wide on purpose: a call's ending ends its session in the same transaction (endCall)
  // and a phone session is only ever created with its call (admission, answerCall), so a phone
  // session still open while its call is over, or gone, is one whose ending was lost, on whatever
  // node. No node is running it, and ending it twice is harmless (endSession skips ended ones).
  const orphans = await sessionsRepo.orphanPhoneSessions(deps.db);
  let orphanSessions = 0;
  for (const s of orphans) {
    const ended = await inTransaction(deps.db, (trx) =>
      endSession(trx, deps, s, SESSION_END_REASON.shutdown),
    );
    if (ended) orphanSessions++;
  }
  return { calls, orphanSessions };
}
