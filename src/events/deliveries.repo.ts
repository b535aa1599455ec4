// SQL for what becomes of a delivery after its claim (delivery-record.ts, delivery-retention.ts,
// worker-recorder.ts): attempt rows and each delivery's next state, written per batch; the
// endpoint's failing streak and auto-pause; stopping a paused endpoint's waiting deliveries;
// pruning the delivery log; and whom to tell of an auto-pause. Claiming is delivery-claim.repo.ts.
// Every write runs on the executor it is given, so the caller decides the transaction.
import { CompiledQuery, PostgresAdapter } from 'kysely';
import { toDbTime, type Db, type Dialect, type Executor } from '../store/database.js';
import { preparedQuery, queryRows } from '../store/prepared.js';
import { ENDPOINT_PAUSED_ERROR } from './event-types.js';

/** One attempt row, in the column order of INSERT_ATTEMPTS_*. */
export type AttemptValues = [
  id: string,
  deliveryId: string,
  attemptNumber: number,
  requestHeaders: string,
  responseStatus: number | null,
  responseHeaders: string | null,
  responseBody: string | null,
  durationMs: number,
  error: string | null,
  startedAt: string,
];

/** A delivery's next state: attempts added is 0 when it was not sent (its status code is kept). */
export type DeliveryUpdate = [
  id: string,
  status: string,
  attemptsAdded: 0 | 1,
  nextAttemptAt: string | null,
  statusCode: number | null,
  error: string | null,
];

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

// Each update is a DeliveryUpdate. Fenced by lease owner and status, so a worker whose lease was
// taken over cannot overwrite the newer owner's state; a skipped delivery (no attempt) keeps its
// last status code.
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
function stateColumns(updates: DeliveryUpdate[]): unknown[][] {
  const cols: unknown[][] = [[], [], [], [], [], []];
  for (const u of updates) for (let i = 0; i < 6; i++) cols[i]!.push(u[i]);
  return cols;
}

const ENDPOINT_SUCCEEDED_SQLITE = `
update webhook_endpoints set failing_since = null, last_success_at = ?
where id = ? and (failing_since is not null or last_success_at is null or last_success_at < ?)`;
const ENDPOINT_SUCCEEDED_POSTGRES = `
update webhook_endpoints set failing_since = null, last_success_at = $1
where id = $2 and (failing_since is not null or last_success_at is null or last_success_at < $3)`;

export const deliveriesRepo = {
  isPostgres(ex: Executor): boolean {
    return dialectOf(ex) === 'postgres';
  },

  /**
   * PostgreSQL only, for a batch whose every endpoint succeeded: the attempts, the deliveries'
   * states and the endpoints' success in one statement (its own transaction).
   */
  async recordSuccesses(
    db: Db,
    owner: string,
    attempts: AttemptValues[],
    updates: DeliveryUpdate[],
    endpointIds: string[],
    now: number,
  ): Promise<void> {
    await queryRows(db, RECORD_SUCCESSES_POSTGRES, [
      JSON.stringify(attempts),
      ...stateColumns(updates),
      owner,
      toDbTime(now),
      toDbTime(now - 60_000),
      endpointIds,
    ]);
  },

  async insertAttempts(trx: Executor, attempts: AttemptValues[]): Promise<void> {
    const pg = dialectOf(trx) === 'postgres';
    await rawRows(trx, pg ? INSERT_ATTEMPTS_POSTGRES : INSERT_ATTEMPTS_SQLITE, [JSON.stringify(attempts)]);
  },

  /** Each delivery's next state, fenced by lease owner; the lease is released. */
  async updateStates(trx: Executor, owner: string, updates: DeliveryUpdate[], now: number): Promise<void> {
    const pg = dialectOf(trx) === 'postgres';
    const nowText = toDbTime(now);
    await rawRows(
      trx,
      pg ? UPDATE_DELIVERIES_POSTGRES : UPDATE_DELIVERIES_SQLITE,
      pg ? [nowText, ...stateColumns(updates), owner] : [nowText, JSON.stringify(updates), owner],
    );
  },

  /** Ends the endpoint's failing streak; skipped when nothing would change (a minute's grace on last_success_at). */
  async endpointSucceeded(trx: Executor, endpointId: string, now: number): Promise<void> {
    await rawRows(
      trx,
      dialectOf(trx) === 'postgres' ? ENDPOINT_SUCCEEDED_POSTGRES : ENDPOINT_SUCCEEDED_SQLITE,
      [toDbTime(now), endpointId, toDbTime(now - 60_000)],
    );
  },

  /** Starts the endpoint's failing streak at `now` unless one is running. */
  async startFailingStreak(trx: Executor, endpointId: string, now: number): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: toDbTime(now) })
      .where('id', '=', endpointId)
      .where('failing_since', 'is', null)
      .execute();
  },

  /** Pauses the endpoint if it is active and has been failing since `failingBefore` or earlier. */
  pauseFailing(trx: Executor, endpointId: string, now: number, failingBefore: number) {
    const nowText = toDbTime(now);
    return trx
      .updateTable('webhook_endpoints')
      .set({ status: 'paused', paused_reason: 'auto', paused_at: nowText, updated_at: nowText })
      .where('id', '=', endpointId)
      .where('status', '=', 'active')
      .where('failing_since', '<=', toDbTime(failingBefore))
      .returning(['id', 'workspace_id', 'url', 'failing_since'])
      .executeTakeFirst();
  },

  /**
   * When an endpoint is paused, its waiting deliveries stop: they become `failed` with the
   * "endpoint paused" error, visible in the log and redeliverable. Rows a worker holds right now
   * are left to it; the worker re-checks the endpoint at its next claim.
   */
  async failPending(trx: Executor, endpointId: string, now: number): Promise<void> {
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
  },

  /** Up to `limit` ids of finished deliveries in `statuses` last updated at or before `before`, oldest first. */
  async finishedIds(db: Db, statuses: string[], before: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '<>', 'pending')
      .where('status', 'in', statuses)
      .where('updated_at', '<=', before)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  },

  /**
   * Deletes those of `ids` still finished and old enough (a delivery redelivered since it was
   * picked is kept), then their attempts; run both in one transaction. Returns how many went.
   */
  async deleteFinished(trx: Executor, ids: string[], statuses: string[], before: string): Promise<number> {
    const gone = await trx
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', ids)
      .where('status', 'in', statuses)
      .where('updated_at', '<=', before)
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
    return gone.length;
  },

  /** Deletes up to `limit` events created at or before `before` that no delivery refers to. */
  async deleteOrphanEvents(db: Db, before: string, limit: number): Promise<number> {
    const orphans = db
      .selectFrom('webhook_events as e')
      .select('e.id')
      .where('e.created_at', '<=', before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
      )
      .orderBy('e.created_at')
      .limit(limit);
    const gone = await db.deleteFrom('webhook_events').where('id', 'in', orphans).returning('id').execute();
    return gone.length;
  },

  /** Whom to tell that an endpoint of the workspace was auto-paused (null: nobody on record). */
  async ownerEmail(db: Db, workspaceId: string): Promise<string | null> {
    const ws = await db
      .selectFrom('workspaces')
      .select('owner_email')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return ws?.owner_email ?? null;
  },
};
