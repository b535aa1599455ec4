// The delivery table as a durable job queue: claiming due deliveries under a lease, and recording
// attempt outcomes with the next retry time. All state lives in the database, so a restarted
// worker picks up exactly where a killed one stopped (a claimed row whose lease ran out is due
// again; an attempt sent but not recorded is sent again: at-least-once).
import { CompiledQuery, PostgresAdapter } from 'kysely';
import { toDbTime, type Db, type Dialect, type Executor } from '../store/database.js';
import { preparedQuery, queryRows } from '../store/prepared.js';
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
  /** When this claim's lease runs out (ms): past it, another worker may claim the row. */
  leaseExpiresAt: number;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /**
   * Per-endpoint limits: at most `perEndpoint` rows of any one endpoint in this claim, fewer for
   * the endpoints listed in `remaining` (what the claimer may still take for them; 0 or less skips
   * the endpoint entirely). Without it, rows are taken in due order whatever their endpoint.
   */
  endpointLimits?: { perEndpoint: number; remaining: ReadonlyMap<string, number> };
}

interface ClaimRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number | string;
  round_start: number | string;
  body: string;
  url: string | null;
  secret_enc: string | null;
  endpoint_status: string | null;
}

// The claim, as hand-written SQL run as prepared statements (store/prepared.ts: synchronous on
// SQLite, named statements on PostgreSQL): this runs for every batch of deliveries, and building
// and compiling these statements through Kysely cost more than running them.
//
// SQLite: due pending rows in due order from the partial index (covering: no table reads), minus
// endpoints the claimer may take no more of; the per-endpoint pick is made in JS; then one UPDATE
// leases the picked rows, re-checking that each is still pending and due (a row another process
// leased in between is skipped), and one SELECT reads them with their event body and endpoint.
const DUE_SQLITE = preparedQuery<{ id: string; endpoint_id: string }>(
  'webhook_due',
  `select id, endpoint_id from webhook_deliveries
where status = 'pending' and next_attempt_at <= $1
  and endpoint_id not in (select value from json_each($2))
order by next_attempt_at limit $3`,
);

const LEASE_SQLITE = preparedQuery<{ id: string }>(
  'webhook_lease',
  `update webhook_deliveries set lease_owner = $1, next_attempt_at = $2
where id in (select value from json_each($3)) and status = 'pending' and next_attempt_at <= $4
returning id`,
);

const CLAIMED_SQLITE = preparedQuery<ClaimRow>(
  'webhook_claimed',
  `select d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count,
  d.round_start, e.body, ep.url, ep.secret_enc, ep.status as endpoint_status
from webhook_deliveries d
join webhook_events e on e.id = d.event_id
left join webhook_endpoints ep on ep.id = d.endpoint_id
where d.id in (select value from json_each($1))`,
);

// PostgreSQL: one round trip. The candidate rows are locked with SKIP LOCKED as they are read, so
// concurrent workers take disjoint rows without waiting on each other; candidates not picked are
// unlocked when the statement ends. The scan stops at `limit` rows here (not a multiple of it):
// every row it locks is one a concurrent claimer skips.
const CLAIM_POSTGRES = preparedQuery<ClaimRow>(
  'webhook_claim',
  `with cand as (
  select id, endpoint_id, next_attempt_at from webhook_deliveries
  where status = 'pending' and next_attempt_at <= $3
    and not (endpoint_id = any($4::text[]))
  order by next_attempt_at limit $7
  for update skip locked
), ranked as (
  select c.id, c.next_attempt_at,
    row_number() over (partition by c.endpoint_id order by c.next_attempt_at) as rn,
    coalesce(($5::jsonb ->> c.endpoint_id)::int, $6) as allowed
  from cand c
), picked as (
  select id from ranked where rn <= allowed order by next_attempt_at limit $7
), claimed as (
  update webhook_deliveries d set lease_owner = $1, next_attempt_at = $2
  from picked where d.id = picked.id
  returning d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.round_start
)
select c.*, e.body, ep.url, ep.secret_enc, ep.status as endpoint_status
from claimed c
join webhook_events e on e.id = c.event_id
left join webhook_endpoints ep on ep.id = c.endpoint_id`,
);

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

/**
 * Claims up to `limit` due deliveries for `owner`. The claim moves next_attempt_at to the lease
 * expiry, so a worker that dies holding it releases it by the clock alone. PostgreSQL: row locks
 * with SKIP LOCKED, so concurrent workers take disjoint rows without waiting on each other. SQLite:
 * one UPDATE … RETURNING statement, atomic because SQLite serializes writers.
 */
export async function claimDue(db: Db, dialect: Dialect, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (o.limit <= 0) return [];
  const nowText = toDbTime(o.now);
  const leaseText = toDbTime(o.now + o.leaseMs);
  const skip: string[] = [];
  const partial: Record<string, number> = {};
  let perEndpoint = o.limit;
  if (o.endpointLimits) {
    perEndpoint = o.endpointLimits.perEndpoint;
    for (const [endpointId, left] of o.endpointLimits.remaining) {
      if (left <= 0) skip.push(endpointId);
      else if (left < perEndpoint) partial[endpointId] = left;
    }
  }
  let rows: ClaimRow[];
  if (dialect === 'postgres') {
    rows = await queryRows(db, CLAIM_POSTGRES, [
      o.owner,
      leaseText,
      nowText,
      skip,
      JSON.stringify(partial),
      perEndpoint,
      o.limit,
    ]);
  } else {
    // The three statements run back to back without yielding whenever the store answers
    // synchronously (no transaction open on it), so claimers in this process never interleave
    // between reading due rows and leasing them; other processes are kept out by the re-check.
    const then = <T, U>(v: T | Promise<T>, f: (t: T) => U | Promise<U>): U | Promise<U> =>
      v instanceof Promise ? v.then(f) : f(v);
    const pick = (due: Array<{ id: string; endpoint_id: string }>): string[] => {
      const picked: string[] = [];
      const taken = new Map<string, number>();
      for (const d of due) {
        const n = taken.get(d.endpoint_id) ?? 0;
        if (n >= (partial[d.endpoint_id] ?? perEndpoint)) continue;
        taken.set(d.endpoint_id, n + 1);
        picked.push(d.id);
        if (picked.length >= o.limit) break;
      }
      return picked;
    };
    rows = await then(
      queryRows(db, DUE_SQLITE, [nowText, JSON.stringify(skip), o.limit]),
      (due): ClaimRow[] | Promise<ClaimRow[]> => {
        const picked = pick(due);
        if (picked.length === 0) return [];
        return then(
          queryRows(db, LEASE_SQLITE, [o.owner, leaseText, JSON.stringify(picked), nowText]),
          (leased): ClaimRow[] | Promise<ClaimRow[]> =>
            leased.length === 0
              ? []
              : queryRows(db, CLAIMED_SQLITE, [JSON.stringify(leased.map((c) => c.id))]),
        );
      },
    );
  }
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
    leaseExpiresAt: o.now + o.leaseMs,
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

// Recording a batch: every attempt row from one JSON parameter, every delivery's new state from
// another (one statement each, whatever the batch size, so the statement text never changes and
// stays prepared).
const INSERT_ATTEMPTS_SQLITE = `
insert into webhook_attempts (id, delivery_id, attempt_number, request_headers, response_status,
  response_headers, response_body, duration_ms, error, started_at)
select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
  value ->> 7, value ->> 8, value ->> 9
from json_each(?)`;

const INSERT_ATTEMPTS_POSTGRES = `
insert into webhook_attempts (id, delivery_id, attempt_number, request_headers, response_status,
  response_headers, response_body, duration_ms, error, started_at)
select r ->> 0, r ->> 1, (r ->> 2)::int, r ->> 3, (r ->> 4)::int, r ->> 5, r ->> 6, (r ->> 7)::int,
  r ->> 8, r ->> 9
from json_array_elements($1::json) r`;

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

const DAY_MS = 24 * 3_600_000;

/** How long the delivery log keeps finished deliveries (pending ones are never pruned). */
export interface LogRetention {
  /** Succeeded deliveries, with their attempts, this long after they succeeded. */
  succeededMs: number;
  /** Failed and dead deliveries, with their attempts, this long after they stopped (redeliverable until then). */
  finishedMs: number;
}

export const LOG_RETENTION: LogRetention = { succeededMs: 7 * DAY_MS, finishedMs: 30 * DAY_MS };

/**
 * Deletes finished deliveries whose age (since they finished) has reached the retention, with
 * their attempts, then events at least that old that no longer have any delivery. Works in chunks, each its own
 * short transaction, so a large backlog never holds the database for long.
 */
export async function pruneDeliveryLog(
  db: Db,
  now: number,
  retention: LogRetention = LOG_RETENTION,
  chunk = 1_000,
): Promise<{ deliveries: number; events: number }> {
  let deliveries = 0;
  const passes: Array<{ statuses: string[]; before: string }> = [
    { statuses: ['succeeded'], before: toDbTime(now - retention.succeededMs) },
    { statuses: ['failed', 'dead'], before: toDbTime(now - retention.finishedMs) },
  ];
  for (const pass of passes) {
    for (;;) {
      const ids = (
        await db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '<>', 'pending')
          .where('status', 'in', pass.statuses)
          .where('updated_at', '<=', pass.before)
          .orderBy('updated_at')
          .limit(chunk)
          .execute()
      ).map((r) => r.id);
      if (ids.length === 0) break;
      await db.transaction().execute(async (trx) => {
        // Re-checked inside the transaction: a delivery redelivered since the select is kept.
        const gone = await trx
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', ids)
          .where('status', 'in', pass.statuses)
          .where('updated_at', '<=', pass.before)
          .returning('id')
          .execute();
        if (gone.length > 0) {
          await trx
            .deleteFrom('webhook_attempts')
            .where(
              'delivery_id',
              'in',
              gone.map((g) => g.id),
            )
            .execute();
        }
        deliveries += gone.length;
      });
      if (ids.length < chunk) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  let events = 0;
  const eventsBefore = toDbTime(now - Math.min(retention.succeededMs, retention.finishedMs));
  for (;;) {
    const orphans = db
      .selectFrom('webhook_events as e')
      .select('e.id')
      .where('e.created_at', '<=', eventsBefore)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
      )
      .orderBy('e.created_at')
      .limit(chunk);
    const gone = await db.deleteFrom('webhook_events').where('id', 'in', orphans).returning('id').execute();
    events += gone.length;
    if (gone.length < chunk) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { deliveries, events };
}
