// The calls list: one page, newest first, and its total. The unfiltered list (the common one, and
// the one that grows with the workspace's whole history) reads its total from resource_counts,
// which triggers keep exact (migration 003), instead of counting every call of the workspace, and
// runs as prepared statements. Filtered lists count the matching rows.
//
// The unfiltered page can also come back already rendered: handing 25 rows of 20 columns to
// JavaScript value by value, or having the store build 25 JSON objects per request, costs more than
// finding the rows. So each call row carries its API JSON (api_json, migration 005: the fields,
// order, timestamps and metadata of toCall + the Call schema, kept current by the store on every
// write) and the page is assembled around those strings. calls.repo.test.ts holds it byte for
// byte to the usual path.
import type { PageParams } from '../../api/paging.js';
import { e164FromQuery } from '../../shared/e164.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryRows } from '../../store/prepared.js';
import { resourceTotal } from '../../store/resource-counts.js';
import type { CallTable } from '../../store/schema.js';

export interface CallFilter {
  project_id?: string;
  direction?: string;
  status?: string;
  from?: string;
  to?: string;
}

const PAGE = preparedQuery<CallTable>(
  'calls_page',
  'select * from calls where workspace_id = $1 order by created_at desc, id desc limit $2 offset $3',
);

// Each call's API JSON is kept on its row (api_json, migration 005), and the page's total comes
// along in the same statement (an uncorrelated subquery, evaluated once): one statement per page.
const PAGE_JSON = preparedQuery<{ json: string; total: number | string }>(
  'calls_page_json',
  `select api_json as json,
     (select total from resource_counts where workspace_id = $1 and resource = 'calls') as total
   from calls where workspace_id = $1 order by created_at desc, id desc limit $2 offset $3`,
);

function isUnfiltered(f: CallFilter): boolean {
  return !f.project_id && !f.direction && !f.status && !f.from && !f.to;
}

export async function listCalls(
  ex: Executor,
  workspaceId: string,
  filter: CallFilter,
  page: PageParams,
): Promise<{ rows: CallTable[]; total: number }> {
  if (isUnfiltered(filter)) {
    const [rows, total] = await Promise.all([
      queryRows(ex, PAGE, [workspaceId, page.perPage, (page.page - 1) * page.perPage]),
      resourceTotal(ex, workspaceId, 'calls'),
    ]);
    return { rows, total };
  }
  let base = ex.selectFrom('calls').where('workspace_id', '=', workspaceId);
  if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
  if (filter.direction) base = base.where('direction', '=', filter.direction);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.from) base = base.where('from_number', '=', e164FromQuery(filter.from));
  if (filter.to) base = base.where('to_number', '=', e164FromQuery(filter.to));
  return paginate(base, page, (qb) => qb.selectAll());
}

/**
 * The unfiltered page with each call already as the API's JSON text; undefined with a filter, and
 * the caller takes listCalls.
 */
export async function listCallsJson(
  ex: Executor,
  workspaceId: string,
  filter: CallFilter,
  page: PageParams,
): Promise<{ items: string[]; total: number } | undefined> {
  if (!isUnfiltered(filter)) return undefined;
  const rows = await queryRows(ex, PAGE_JSON, [workspaceId, page.perPage, (page.page - 1) * page.perPage]);
  // A page past the end (or a workspace without calls) has no row to carry the total.
  const total = rows.length > 0 ? Number(rows[0]!.total) : await resourceTotal(ex, workspaceId, 'calls');
  return { items: rows.map((r) => r.json), total };
}
