// The delivery table as a durable job queue: claiming due deliveries under a lease, and recording
// attempt outcomes with the next retry time. All state lives in the database, so a restarted
// worker picks up exactly where a killed one stopped (a claimed row whose lease ran out is due
// again; an attempt sent but not recorded is sent again: at-least-once).
import { toDbTime, type Db, type Dialect, type Executor } from '../store/database.js';
import type { AttemptOutcome } from './deliver.js';
import { ENDPOINT_PAUSED_ERROR } from './event-types.js';
import { retryDelayMs } from './retry-policy.js';

export const AUTO_PAUSE_AFTER_MS = 7 * 24 * 3_600_000;

export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attemptCount: number;
  roundStart: number;
  body: string;
  /** Null when the endpoint was deleted since the delivery was written. */
  endpoint: { url: string; secretEnc: string; status: string } | null;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
}

/**
 * Claims up to `limit` due deliveries for `owner`. The claim moves next_attempt_at to the lease
 * expiry, so a worker that dies holding it releases it by the clock alone. PostgreSQL: row locks
 * with SKIP LOCKED, so concurrent workers take disjoint rows without waiting on each other. SQLite:
 * one UPDATE … RETURNING statement, atomic because SQLite serializes writers.
 */
export async function claimDue(db: Db, dialect: Dialect, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const nowText = toDbTime(o.now);
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowText)
    .orderBy('next_attempt_at')
    .limit(o.limit);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: o.owner, next_attempt_at: toDbTime(o.now + o.leaseMs) })
    .where('id', 'in', due)
    .returning('id')
    .execute();
  if (claimed.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .leftJoin('webhook_endpoints as ep', 'ep.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.workspace_id',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.attempt_count',
      'd.round_start',
      'e.body',
      'ep.url',
      'ep.secret_enc',
      'ep.status as endpoint_status',
    ])
    .where(
      'd.id',
      'in',
      claimed.map((c) => c.id),
    )
    .orderBy('d.next_attempt_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attemptCount: Number(r.attempt_count),
    roundStart: Number(r.round_start),
    body: r.body,
    endpoint:
      r.url !== null && r.secret_enc !== null && r.endpoint_status !== null
        ? { url: r.url, secretEnc: r.secret_enc, status: r.endpoint_status }
        : null,
  }));
}

/** Hands claimed, unsent deliveries back (due now) so another worker need not wait for the lease. */
export async function releaseClaims(db: Db, owner: string, ids: string[], now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, next_attempt_at: toDbTime(now) })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute();
  }
}

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
  const nowText = toDbTime(now);
  return db.transaction().execute(async (trx) => {
    const attempts = results.flatMap((r) => ('outcome' in r ? [attemptRow(r.claim, r.outcome)] : []));
    for (let i = 0; i < attempts.length; i += 100) {
      await trx
        .insertInto('webhook_attempts')
        .values(attempts.slice(i, i + 100))
        .execute();
    }
    // Per endpoint, the batch's net effect on its failing streak (all share one `now`).
    const endpoints = new Map<string, { anySuccess: boolean; lastOk: boolean }>();
    // Successes share one UPDATE per status code (the common case, so the batch costs a handful of
    // statements, not one per delivery); failures and skips each need their own values.
    const succeeded = new Map<number, string[]>();
    for (const r of results) {
      const fenced = trx
        .updateTable('webhook_deliveries')
        .where('id', '=', r.claim.id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'pending');
      if ('skipped' in r) {
        await fenced
          .set({
            status: 'failed',
            next_attempt_at: null,
            lease_owner: null,
            last_error: r.skipped,
            updated_at: nowText,
          })
          .execute();
        continue;
      }
      const o = r.outcome;
      const e = endpoints.get(r.claim.endpointId) ?? { anySuccess: false, lastOk: false };
      endpoints.set(r.claim.endpointId, { anySuccess: e.anySuccess || o.ok, lastOk: o.ok });
      if (o.ok) {
        const ids = succeeded.get(o.status!) ?? [];
        ids.push(r.claim.id);
        succeeded.set(o.status!, ids);
        continue;
      }
      const attemptNumber = r.claim.attemptCount + 1;
      const delay = retryDelayMs(attemptNumber - r.claim.roundStart, random);
      await fenced
        .set({
          status: delay === null ? 'dead' : 'pending',
          attempt_count: attemptNumber,
          next_attempt_at: delay === null ? null : toDbTime(now + delay),
          lease_owner: null,
          last_status_code: o.status,
          last_error: o.error,
          updated_at: nowText,
        })
        .execute();
    }
    for (const [code, ids] of succeeded) {
      for (let i = 0; i < ids.length; i += 500) {
        await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            status: 'succeeded',
            attempt_count: eb('attempt_count', '+', 1),
            next_attempt_at: null,
            lease_owner: null,
            last_status_code: code,
            last_error: null,
            updated_at: nowText,
          }))
          .where('id', 'in', ids.slice(i, i + 500))
          .where('lease_owner', '=', owner)
          .where('status', '=', 'pending')
          .execute();
      }
    }
    const paused: PausedEndpoint[] = [];
    for (const [endpointId, e] of endpoints) {
      if (e.lastOk) {
        await endpointSucceeded(trx, endpointId, now);
      } else {
        // A success earlier in the batch ended the old streak; the failure after it starts a new one.
        if (e.anySuccess) await endpointSucceeded(trx, endpointId, now);
        const p = await endpointFailed(trx, endpointId, now);
        if (p) paused.push(p);
      }
    }
    return paused;
  });
}

function attemptRow(claim: ClaimedDelivery, o: AttemptOutcome) {
  return {
    id: o.attemptId,
    delivery_id: claim.id,
    attempt_number: claim.attemptCount + 1,
    request_headers: JSON.stringify(o.requestHeaders),
    response_status: o.status,
    response_headers: o.responseHeaders ? JSON.stringify(o.responseHeaders) : null,
    response_body: o.responseBody,
    duration_ms: Math.round(o.durationMs),
    error: o.error,
    started_at: toDbTime(o.startedAt),
  };
}

async function endpointSucceeded(trx: Executor, endpointId: string, now: number): Promise<null> {
  // Skipped when nothing would change, so a healthy endpoint costs no extra write per delivery.
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: null, last_success_at: toDbTime(now) })
    .where('id', '=', endpointId)
    .where((eb) =>
      eb.or([
        eb('failing_since', 'is not', null),
        eb('last_success_at', 'is', null),
        eb('last_success_at', '<', toDbTime(now - 60_000)),
      ]),
    )
    .execute();
  return null;
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
  const nowText = toDbTime(now);
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: nowText })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const row = await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'paused', paused_reason: 'auto', paused_at: nowText, updated_at: nowText })
    .where('id', '=', endpointId)
    .where('status', '=', 'active')
    .where('failing_since', '<=', toDbTime(now - AUTO_PAUSE_AFTER_MS))
    .returning(['id', 'workspace_id', 'url', 'failing_since'])
    .executeTakeFirst();
  if (row) await failPendingDeliveries(trx, endpointId, now);
  return row
    ? {
        endpointId: row.id,
        workspaceId: row.workspace_id,
        url: row.url,
        failingSince: row.failing_since ?? nowText,
      }
    : null;
}

/**
 * When an endpoint is paused, its waiting deliveries stop: they become `failed` with the
 * "endpoint paused" error, visible in the log and redeliverable. Rows a worker holds right now are
 * left to it; the worker re-checks the endpoint at its next claim.
 */
export async function failPendingDeliveries(trx: Executor, endpointId: string, now: number): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      last_error: ENDPOINT_PAUSED_ERROR,
      updated_at: toDbTime(now),
    })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .execute();
}
