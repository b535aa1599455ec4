// The calls list: one page, newest first, and its total. The unfiltered list (the common one, and
// the one that grows with the workspace's whole history) reads its total from resource_counts,
// which triggers keep exact (migration 003), instead of counting every call of the workspace, and
// runs as prepared statements. Filtered lists count the matching rows.
//
// The unfiltered page can also come back already rendered: handing 25 rows of 20 columns to
// JavaScript value by value costs more than reading them, so the store writes each call as the
// API's JSON (the fields, order, timestamps and metadata of toCall + the Call schema) and the page
// is assembled around those strings. calls.repo.test.ts holds it byte for byte to the usual path.
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

/** apiTime() in SQL: whole seconds, `Z`. */
const apiTimeSql = (column: string) =>
  `case when length(${column}) >= 20 then substr(${column}, 1, 19) || 'Z' else ${column} end`;

// SQLite: json_object. PostgreSQL: row_to_json of a one-row derived table (compact, keys in column
// order; json_build_object would put spaces around its colons). Text is escaped as JSON.stringify
// does in both, and metadata (JSON.stringify's output when stored) goes in verbatim.
const PAGE_JSON = preparedQuery<{ json: string }>('calls_page_json', {
  sqlite: `select json_object(
     'id', id, 'direction', direction, 'status', status, 'from', from_number, 'to', to_number,
     'project_id', project_id, 'workflow_id', workflow_id, 'workflow_version', workflow_version,
     'session_id', session_id, 'duration_seconds', duration_seconds, 'hangup_reason', hangup_reason,
     'metadata', json(case when metadata = '' then '{}' else metadata end),
     'started_at', ${apiTimeSql('started_at')}, 'ended_at', ${apiTimeSql('ended_at')},
     'created_at', ${apiTimeSql('created_at')}) as json
   from calls where workspace_id = $1 order by created_at desc, id desc limit $2 offset $3`,
  postgres: `select (select row_to_json(c)::text from (select
     k.id, k.direction, k.status, k.from_number as "from", k.to_number as "to",
     k.project_id, k.workflow_id, k.workflow_version, k.session_id, k.duration_seconds,
     k.hangup_reason, (case when k.metadata = '' then '{}' else k.metadata end)::json as metadata,
     ${apiTimeSql('k.started_at')} as started_at, ${apiTimeSql('k.ended_at')} as ended_at,
     ${apiTimeSql('k.created_at')} as created_at) c) as json
   from calls k where k.workspace_id = $1 order by k.created_at desc, k.id desc limit $2 offset $3`,
});

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
  const [rows, total] = await Promise.all([
    queryRows(ex, PAGE_JSON, [workspaceId, page.perPage, (page.page - 1) * page.perPage]),
    resourceTotal(ex, workspaceId, 'calls'),
  ]);
  return { items: rows.map((r) => r.json), total };
}
