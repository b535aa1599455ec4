// The calls list: one page, newest first, and its total, as the API's JSON.
//
// Each call row carries its API rendering (api_json, migration 005: the fields, order, timestamps
// and metadata of toCall + the Call schema, kept current by the store on every write), and a page
// is assembled around those strings. Handing 25 rows of 20 columns to JavaScript value by value,
// or having the store build 25 JSON objects per request, cost more than finding the rows.
// calls.repo.test.ts holds the rendering byte for byte to rows → toCall → the schema serializer.
//
// The unfiltered list (the common one, and the one that grows with the workspace's whole history)
// is one prepared statement: the page, with its total read from resource_counts (kept exact by
// triggers, migration 003) instead of counting every call of the workspace. Filtered lists count
// the matching rows.
import { sql } from 'kysely';
import type { PageParams } from '../../api/paging.js';
import { e164FromQuery } from '../../shared/e164.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryRows } from '../../store/prepared.js';
import { resourceTotal } from '../../store/resource-counts.js';

export interface CallFilter {
  project_id?: string;
  direction?: string;
  status?: string;
  from?: string;
  to?: string;
}

export interface CallPageJson {
  /** Each call as the API's JSON text. */
  items: string[];
  total: number;
}

// The total comes along in the same statement (an uncorrelated subquery, evaluated once).
const PAGE = preparedQuery<{ json: string; total: number | string }>(
  'calls_page_json',
  `select api_json as json,
     (select total from resource_counts where workspace_id = $1 and resource = 'calls') as total
   from calls where workspace_id = $1 order by created_at desc, id desc limit $2 offset $3`,
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
    const rows = await queryRows(ex, PAGE, [workspaceId, page.perPage, (page.page - 1) * page.perPage]);
    // A page past the end (or a workspace without calls) has no row to carry the total.
    const total = rows.length > 0 ? Number(rows[0]!.total) : await resourceTotal(ex, workspaceId, 'calls');
    return { items: rows.map((r) => r.json), total };
  }
  let base = ex.selectFrom('calls').where('workspace_id', '=', workspaceId);
  if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
  if (filter.direction) base = base.where('direction', '=', filter.direction);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.from) base = base.where('from_number', '=', e164FromQuery(filter.from));
  if (filter.to) base = base.where('to_number', '=', e164FromQuery(filter.to));
  // api_json is kept by the store, not written by the application, so the table type leaves it out.
  const { rows, total } = await paginate(base, page, (qb) => qb.select(sql<string>`api_json`.as('json')));
  return { items: rows.map((r) => r.json), total };
}
