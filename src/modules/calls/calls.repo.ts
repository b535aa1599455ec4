// The calls list: one page, newest first, and its total, as the API's JSON.
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
import { preparedQuery, queryFirst } from '../../store/prepared.js';

export interface CallFilter {
  project_id?: string;
  direction?: string;
  status?: string;
  from?: string;
  to?: string;
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

function isUnfiltered(f: CallFilter): boolean {
  return !f.project_id && !f.direction && !f.status && !f.from && !f.to;
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
  // api_json is kept by the store, not written by the application, so the table type leaves it out.
  const { rows, total } = await paginate(base, page, (qb) => qb.select(sql<string>`api_json`.as('json')));
  return { itemsJson: rows.map((r) => r.json).join(','), count: rows.length, total };
}
