// Recording attempt outcomes in the delivery table: the attempt log rows, each delivery's next
// state (succeeded, retry time, dead, or failed unsent), and the endpoint's failing streak, which
// pauses an endpoint that has failed every delivery for 7 days. Written per batch in one
// transaction (group commit), fenced by lease owner, so a worker whose lease was taken over cannot
// overwrite the newer owner's state.
import { emitTelemetry } from '../shared/telemetry.js';
import { toDbTime, type Db, type Executor } from '../store/database.js';
import { deliveriesRepo, type AttemptValues, type DeliveryUpdate } from './deliveries.repo.js';
import type { AttemptOutcome } from './deliver.js';
import type { ClaimedDelivery } from './delivery-claim.repo.js';
import { retryDelayMs } from './retry-policy.js';

export const AUTO_PAUSE_AFTER_MS = 7 * 24 * 3_600_000;

/** What happened to one claimed delivery: an attempt was made, or it was not sent at all. */
export type DeliveryResult =
  { claim: ClaimedDelivery; outcome: AttemptOutcome } | { claim: ClaimedDelivery; skipped: string };

export interface PausedEndpoint {
  endpointId: string;
  workspaceId: string;
  url: string;
  failingSince: string;
}

/**
 * Writes a batch of results in one transaction (group commit: one fsync for many deliveries) and
 * returns the endpoints this batch auto-paused. Updates are fenced by lease owner, so a worker
 * whose lease was taken over cannot overwrite the newer owner's state.
 */
export async function recordResults(
  db: Db,
  owner: string,
  results: DeliveryResult[],
  now: number,
  random: () => number = Math.random,
): Promise<PausedEndpoint[]> {
  const attempts: AttemptValues[] = [];
  const updates: DeliveryUpdate[] = [];
  // Per endpoint, the batch's net effect on its failing streak (all share one `now`).
  const endpoints = new Map<string, { anySuccess: boolean; lastOk: boolean }>();
  for (const r of results) {
    if ('skipped' in r) {
      updates.push([r.claim.id, 'failed', 0, null, null, r.skipped]);
      continue;
    }
    const o = r.outcome;
    emitTelemetry({ kind: 'webhook.attempt', ok: o.ok, seconds: o.durationMs / 1000 });
    const attemptNumber = r.claim.attemptCount + 1;
    attempts.push(attemptRow(r.claim, o, attemptNumber));
    const e = endpoints.get(r.claim.endpointId);
    endpoints.set(r.claim.endpointId, { anySuccess: (e?.anySuccess ?? false) || o.ok, lastOk: o.ok });
    if (o.ok) {
      updates.push([r.claim.id, 'succeeded', 1, null, o.status, null]);
      continue;
    }
    const delay = retryDelayMs(attemptNumber - r.claim.roundStart, random);
    updates.push([
      r.claim.id,
      delay === null ? 'dead' : 'pending',
      1,
      delay === null ? null : toDbTime(now + delay),
      o.status,
      o.error,
    ]);
  }
  if (deliveriesRepo.isPostgres(db) && [...endpoints.values()].every((e) => e.lastOk && e.anySuccess)) {
    await deliveriesRepo.recordSuccesses(db, owner, attempts, updates, [...endpoints.keys()], now);
    return [];
  }
  return db.transaction().execute(async (trx) => {
    if (attempts.length > 0) await deliveriesRepo.insertAttempts(trx, attempts);
    await deliveriesRepo.updateStates(trx, owner, updates, now);
    const paused: PausedEndpoint[] = [];
    for (const [endpointId, e] of endpoints) {
      if (e.lastOk) {
        await deliveriesRepo.endpointSucceeded(trx, endpointId, now);
      } else {
        // A success earlier in the batch ended the old streak; the failure after it starts a new one.
        if (e.anySuccess) await deliveriesRepo.endpointSucceeded(trx, endpointId, now);
        const p = await endpointFailed(trx, endpointId, now);
        if (p) paused.push(p);
      }
    }
    return paused;
  });
}

/** One attempt row, in the repo's column order. */
function attemptRow(claim: ClaimedDelivery, o: AttemptOutcome, attemptNumber: number): AttemptValues {
  return [
    o.attemptId,
    claim.id,
    attemptNumber,
    JSON.stringify(o.requestHeaders),
    o.status,
    o.responseHeaders ? JSON.stringify(o.responseHeaders) : null,
    o.responseBody,
    Math.round(o.durationMs),
    o.error,
    toDbTime(o.startedAt),
  ];
}

/**
 * A failed attempt starts (or continues) the endpoint's failing streak; a streak that has lasted
 * 7 days pauses an active endpoint. Only the transaction that flips the status reports it, so the
 * owner gets one e-mail per pause.
 */
async function endpointFailed(
  trx: Executor,
  endpointId: string,
  now: number,
): Promise<PausedEndpoint | null> {
  await deliveriesRepo.startFailingStreak(trx, endpointId, now);
  const row = await deliveriesRepo.pauseFailing(trx, endpointId, now, now - AUTO_PAUSE_AFTER_MS);
  if (row) await deliveriesRepo.failPending(trx, endpointId, now);
  return row
    ? {
        endpointId: row.id,
        workspaceId: row.workspace_id,
        url: row.url,
        failingSince: row.failing_since ?? toDbTime(now),
      }
    : null;
}
