// Recording attempt outcomes in the delivery table: the attempt log rows, each delivery's next
// state (succeeded, retry time, dead, or failed unsent), and the endpoint's failing streak, which
// pauses an endpoint that has failed every delivery for 7 days. Written per batch in one
// transaction (group commit), fenced by lease owner, so a worker whose lease was taken over cannot
// overwrite the newer owner's state.
import { CompiledQuery, PostgresAdapter } from 'kysely';
import { emitTelemetry } from '../shared/telemetry.js';
import { toDbTime, type Db, type Dialect, type Executor } from '../store/database.js';
import { preparedQuery, queryRows } from '../store/prepared.js';
import type { AttemptOutcome } from './deliver.js';
import type { ClaimedDelivery } from './delivery-claim.js';
import { ENDPOINT_PAUSED_ERROR } from './event-types.js';
import { retryDelayMs } from './retry-policy.js';

export const AUTO_PAUSE_AFTER_MS = 7 * 24 * 3_600_000;

/** Runs hand-written SQL on `ex` (a database or an open transaction); every row. */
async function rawRows<R>(ex: Executor, text: string, params: unknown[]): Promise<R[]> {
  return (await ex.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

const dialects = new WeakMap<object, Dialect>();
function dialectOf(ex: Executor): Dialect {
  const executor = ex.getExecutor();
  let d = dialects.get(executor.adapter);
  if (!d) {
    d = executor.adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
    dialects.set(executor.adapter, d);
  }
  return d;
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

// Recording a batch: every attempt row from one JSON parameter, every delivery's new state from
// another (one statement each, whatever the batch size, so the statement text never changes and
// stays prepared).
const INSERT_ATTEMPTS_SQLITE = `
insert into webhook_attempts (id, delivery_id, attempt_number, request_headers, response_status,
  response_headers, response_body, duration_ms, error, started_at)
select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
  value ->> 7, value ->> 8, value ->> 9
from json_each(?)`;

// jsonb, not json: a json value is kept as text and each `->>` parses it again (ten per attempt,
// most of the statement's time); jsonb is parsed once. The strings come out the same.
const INSERT_ATTEMPTS_POSTGRES = `
insert into webhook_attempts (id, delivery_id, attempt_number, request_headers, response_status,
  response_headers, response_body, duration_ms, error, started_at)
select r ->> 0, r ->> 1, (r ->> 2)::int, r ->> 3, (r ->> 4)::int, r ->> 5, r ->> 6, (r ->> 7)::int,
  r ->> 8, r ->> 9
from jsonb_array_elements($1::jsonb) r`;

// Each result is [delivery id, new status, attempts added (0 or 1), next attempt at, status code,
// error]. Fenced by lease owner and status, so a worker whose lease was taken over cannot overwrite
// the newer owner's state; a skipped delivery (no attempt) keeps its last status code.
const UPDATE_DELIVERIES_SQLITE = `
update webhook_deliveries set
  status = r.value ->> 1,
  attempt_count = attempt_count + (r.value ->> 2),
  next_attempt_at = r.value ->> 3,
  lease_owner = null,
  last_status_code = case when (r.value ->> 2) = 0 then last_status_code else r.value ->> 4 end,
  last_error = r.value ->> 5,
  updated_at = ?
from json_each(?) as r
where webhook_deliveries.id = r.value ->> 0
  and webhook_deliveries.lease_owner = ? and webhook_deliveries.status = 'pending'`;

// PostgreSQL takes the new states as parallel arrays: unnest() tells the planner how many rows
// come (json_array_elements() counts as 100), so it probes the primary key per row instead of
// scanning every pending row when the table's statistics lag behind a burst. The fence is the
// lease owner alone: a row leased to us is pending (a lease is only ever set on pending rows and
// cleared when they finish), and leaving `status = 'pending'` out keeps the planner from reading
// the whole pending index instead.
const DELIVERY_STATES_POSTGRES = `unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[])
  as r(id, status, inc, next, code, error)`;
const SET_DELIVERY_STATE_POSTGRES = `status = r.status,
  attempt_count = d.attempt_count + r.inc,
  next_attempt_at = r.next,
  lease_owner = null,
  last_status_code = case when r.inc = 0 then d.last_status_code else r.code end,
  last_error = r.error,`;

const UPDATE_DELIVERIES_POSTGRES = `
update webhook_deliveries d set ${SET_DELIVERY_STATE_POSTGRES} updated_at = $1
from ${DELIVERY_STATES_POSTGRES}
where d.id = r.id and d.lease_owner = $8`;

// PostgreSQL, when no attempt of the batch failed (the usual case): the whole record in one
// statement, so one round trip instead of five (begin, attempts, deliveries, endpoints, commit).
const RECORD_SUCCESSES_POSTGRES = preparedQuery<never>(
  'webhook_record_ok',
  `with attempts as (
  ${INSERT_ATTEMPTS_POSTGRES.trim()}
), deliveries as (
  update webhook_deliveries d set ${SET_DELIVERY_STATE_POSTGRES} updated_at = $9
  from ${DELIVERY_STATES_POSTGRES}
  where d.id = r.id and d.lease_owner = $8
)
update webhook_endpoints set failing_since = null, last_success_at = $9
where id = any($11::text[])
  and (failing_since is not null or last_success_at is null or last_success_at < $10)`,
);

/** The delivery updates as the parallel arrays $2…$7 of the PostgreSQL statements. */
function stateColumns(updates: unknown[][]): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], []];
  for (const u of updates) for (let i = 0; i < 6; i++) cols[i]!.push(u[i]);
  return cols;
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
  const pg = dialectOf(db) === 'postgres';
  const attempts: unknown[][] = [];
  const updates: unknown[][] = [];
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
  if (pg && [...endpoints.values()].every((e) => e.lastOk && e.anySuccess)) {
    await queryRows(db, RECORD_SUCCESSES_POSTGRES, [
      JSON.stringify(attempts),
      ...stateColumns(updates),
      owner,
      nowText,
      toDbTime(now - 60_000),
      [...endpoints.keys()],
    ]);
    return [];
  }
  return db.transaction().execute(async (trx) => {
    if (attempts.length > 0) {
      await rawRows(trx, pg ? INSERT_ATTEMPTS_POSTGRES : INSERT_ATTEMPTS_SQLITE, [JSON.stringify(attempts)]);
    }
    await rawRows(
      trx,
      pg ? UPDATE_DELIVERIES_POSTGRES : UPDATE_DELIVERIES_SQLITE,
      pg ? [nowText, ...stateColumns(updates), owner] : [nowText, JSON.stringify(updates), owner],
    );
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

/** One attempt row, in the column order of INSERT_ATTEMPTS_*. */
function attemptRow(claim: ClaimedDelivery, o: AttemptOutcome, attemptNumber: number): unknown[] {
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

const ENDPOINT_SUCCEEDED_SQLITE = `
update webhook_endpoints set failing_since = null, last_success_at = ?
where id = ? and (failing_since is not null or last_success_at is null or last_success_at < ?)`;
const ENDPOINT_SUCCEEDED_POSTGRES = `
update webhook_endpoints set failing_since = null, last_success_at = $1
where id = $2 and (failing_since is not null or last_success_at is null or last_success_at < $3)`;

async function endpointSucceeded(trx: Executor, endpointId: string, now: number): Promise<void> {
  // Skipped when nothing would change, so a healthy endpoint costs no extra write per delivery.
  await rawRows(
    trx,
    dialectOf(trx) === 'postgres' ? ENDPOINT_SUCCEEDED_POSTGRES : ENDPOINT_SUCCEEDED_SQLITE,
    [toDbTime(now), endpointId, toDbTime(now - 60_000)],
  );
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
