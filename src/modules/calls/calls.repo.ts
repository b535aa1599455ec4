// SQL for calls. The calls list: one page, newest first, and its total, as the API's JSON; and
// (callsRepo, at the end) the rows the call records service reads and writes.
//
// Each call row carries its API rendering (api_json, migration 005: the fields, order, timestamps
// and metadata of toCall + the Call schema, kept current by the store on every write), and a page
// is assembled around those strings. Handing 25 rows of 20 columns to JavaScript value by value,
// or having the store build 25 JSON objects per request, cost more than finding the rows.
// calls.repo.test.ts holds the rendering byte for byte to rows → toCall → the schema serializer.
//
// The unfiltered list (the common one, and the one that grows with the workspace's whole history)
// is one prepared statement answering one row: the page, with its total read from resource_counts
// (kept exact by triggers, migration 003) instead of counting every call of the workspace.
// Filtered lists count the matching rows.
import { sql } from 'kysely';
import type { PageParams } from '../../shared/paging.js';
import { e164FromQuery } from '../../shared/e164.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryExecute, queryFirst, queryRows } from '../../store/prepared.js';
import type { CallTable } from '../../store/schema.js';
import { LIVE_CALL_STATUSES } from './calls.schema.js';

export interface CallFilter {
  project_id?: string;
  direction?: string;
  status?: string;
  from?: string;
  to?: string;
  /** The legs dialled from this call. */
  parent_call_id?: string;
}

export interface CallPageJson {
  /** The page's calls as JSON text, comma-separated: the inside of the `data` array. */
  itemsJson: string;
  /** How many calls the page holds. */
  count: number;
  total: number;
}

// The page comes back as one row: its calls already joined into one string, in page order, with
// how many there are and the total (an uncorrelated subquery, evaluated once). One value to hand
// to JavaScript instead of 25, and a page past the end still carries the total.
// SQLite concatenates in the order the subquery yields its rows: a subquery with a LIMIT is never
// flattened into an aggregate, so it runs as a coroutine walking calls_workspace in page order.
// (`group_concat(… order by …)` would say so formally, and sorts the page's 10 KB again: twice
// the cost.) The byte-for-byte page tests in calls.repo.test.ts hold this order. PostgreSQL
// promises no order for an aggregate over a subquery, so there it is spelled out.
const PAGE = preparedQuery<{ total: number | string | null; count: number | string; items: string | null }>(
  'calls_page_json',
  {
    sqlite: `select
       (select total from resource_counts where workspace_id = $1 and resource = 'calls') as total,
       count(*) as count,
       group_concat(api_json, ',') as items
     from (select api_json from calls where workspace_id = $1
           order by created_at desc, id desc limit $2 offset $3)`,
    postgres: `select
       (select total from resource_counts where workspace_id = $1 and resource = 'calls') as total,
       count(*) as count,
       string_agg(api_json, ',' order by created_at desc, id desc) as items
     from (select api_json, created_at, id from calls where workspace_id = $1
           order by created_at desc, id desc limit $2 offset $3) page`,
  },
);

/** No filter given: every field of a CallFilter is one (a new one counts without an edit here). */
function isUnfiltered(f: CallFilter): boolean {
  return !Object.values(f).some(Boolean);
}

export async function listCallsJson(
  ex: Executor,
  workspaceId: string,
  filter: CallFilter,
  page: PageParams,
): Promise<CallPageJson> {
  if (isUnfiltered(filter)) {
    const row = await queryFirst(ex, PAGE, [workspaceId, page.perPage, (page.page - 1) * page.perPage]);
    return { itemsJson: row?.items ?? '', count: Number(row?.count ?? 0), total: Number(row?.total ?? 0) };
  }
  let base = ex.selectFrom('calls').where('workspace_id', '=', workspaceId);
  if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
  if (filter.direction) base = base.where('direction', '=', filter.direction);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.from) base = base.where('from_number', '=', e164FromQuery(filter.from));
  if (filter.to) base = base.where('to_number', '=', e164FromQuery(filter.to));
  if (filter.parent_call_id) base = base.where('parent_call_id', '=', filter.parent_call_id);
  // api_json is kept by the store, not written by the application, so the table type leaves it out.
  const { rows, total } = await paginate(base, page, (qb) => qb.select(sql<string>`api_json`.as('json')));
  return { itemsJson: rows.map((r) => r.json).join(','), count: rows.length, total };
}

// A call's own row by id: read some five times in every call's life (admission, answer, end), so
// kept prepared instead of built and compiled by Kysely each time.
const CALL_BY_ID = preparedQuery<CallTable>('call_by_id', 'select * from calls where id = $1');

// The writes of every call's life (admission's insert, the answer, the end), kept prepared too: a
// Kysely insert or update is built and compiled anew each time, which costs more than the write.
const ADMITTED_COLUMNS = [
  'id',
  'workspace_id',
  'project_id',
  'workflow_id',
  'workflow_version',
  'session_id',
  'phone_number_id',
  'direction',
  'status',
  'from_number',
  'to_number',
  'duration_seconds',
  'hangup_reason',
  'metadata',
  'variables',
  'sip_call_id',
  'started_at',
  'ended_at',
  'created_at',
  'updated_at',
  'node_id',
  'record',
] as const satisfies readonly (keyof CallTable)[];
const INSERT_ADMITTED = preparedQuery<never>(
  'call_insert_admitted',
  `insert into calls (${ADMITTED_COLUMNS.join(', ')})
   values (${ADMITTED_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
);
// $2 twice: both columns take the same text, so PostgreSQL deduces one type for it.
const ANSWER = preparedQuery<CallTable>(
  'call_answer',
  `update calls set status = 'in_progress', started_at = $2, updated_at = $2
   where id = $1 and status in ('queued', 'ringing') returning *`,
);
const END = preparedQuery<never>(
  'call_end',
  `update calls set status = $3, hangup_reason = $4, ended_at = $5, duration_seconds = $6, updated_at = $5
   where id = $1 and status = $2`,
);
const SET_SESSION = preparedQuery<never>(
  'call_set_session',
  'update calls set session_id = $2, updated_at = $3 where id = $1',
);

/** The call rows the service and the call controller read and write (by id: call ids are unique). */
export const callsRepo = {
  find(ex: Executor, id: string): Promise<CallTable | undefined> {
    return Promise.resolve(queryFirst(ex, CALL_BY_ID, [id]));
  },

  async load(ex: Executor, id: string): Promise<CallTable> {
    const row = await queryFirst(ex, CALL_BY_ID, [id]);
    if (!row) throw new Error(`call ${id} not found`);
    return row;
  },

  findInWorkspace(ex: Executor, workspaceId: string, id: string): Promise<CallTable | undefined> {
    return ex
      .selectFrom('calls')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  async insert(ex: Executor, row: CallTable): Promise<void> {
    await ex.insertInto('calls').values(row).execute();
  },

  /** insert() for a row of inbound admission's columns (no recording, detection or parent fields). */
  async insertAdmitted(ex: Executor, row: CallTable): Promise<void> {
    const values = ADMITTED_COLUMNS.map((c) => row[c] ?? null);
    await queryExecute(ex, INSERT_ADMITTED, values);
  },

  /** queued or ringing → in_progress: the row as it now is; undefined when the call was in neither. */
  async answer(ex: Executor, id: string, at: string): Promise<CallTable | undefined> {
    return (await queryRows(ex, ANSWER, [id, at]))[0];
  },

  /** queued → ringing; false when the call was not queued. */
  async markRinging(ex: Executor, id: string, at: string): Promise<boolean> {
    const r = await ex
      .updateTable('calls')
      .set({ status: 'ringing', updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** Writes the ending, only while the status is still `current`; false when it was not. */
  async end(
    ex: Executor,
    id: string,
    current: string,
    ending: Pick<CallTable, 'status' | 'hangup_reason' | 'ended_at' | 'duration_seconds'>,
  ): Promise<boolean> {
    const { status, hangup_reason, ended_at, duration_seconds } = ending;
    const params = [id, current, status, hangup_reason, ended_at, duration_seconds];
    return (await queryExecute(ex, END, params)) > 0;
  },

  async setAnsweredBy(ex: Executor, id: string, answeredBy: string, at: string): Promise<void> {
    await ex
      .updateTable('calls')
      .set({ answered_by: answeredBy, updated_at: at })
      .where('id', '=', id)
      .execute();
  },

  async setSession(ex: Executor, id: string, sessionId: string, at: string): Promise<void> {
    await queryExecute(ex, SET_SESSION, [id, sessionId, at]);
  },

  /**
   * The live calls a sweep by `nodeId` ends: its own and those of no node, oldest first. Read
   * through calls_status, so only the calls up right now across the cluster are looked at
   * (migration 006 says why node_id has no index).
   */
  staleOf(ex: Executor, nodeId: string) {
    return ex
      .selectFrom('calls')
      .select(['id', 'status'])
      .where('status', 'in', [...LIVE_CALL_STATUSES])
      .where((eb) => eb.or([eb('node_id', '=', nodeId), eb('node_id', 'is', null)]))
      .orderBy('created_at');
  },
};
