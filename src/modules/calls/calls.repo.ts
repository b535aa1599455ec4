// The calls list: one page, newest first, and its total. The unfiltered list (the common one, and
// the one that grows with the workspace's whole history) reads its total from resource_counts,
// which triggers keep exact (migration 003), instead of counting every call of the workspace, and
// runs as prepared statements. Filtered lists count the matching rows.
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
