// Per-workspace row totals kept by triggers (migration 003): what an unfiltered list shows as
// meta.total, read as one row instead of counted.
import type { Executor } from './database.js';
import { preparedQuery, queryFirst } from './prepared.js';

/** The resources whose rows are counted. */
export type CountedResource = 'calls';

const TOTAL = preparedQuery<{ total: number | string }>(
  'resource_total',
  'select total from resource_counts where workspace_id = $1 and resource = $2',
);

/** How many rows of `resource` the workspace has (0 before its first). */
export function resourceTotal(
  ex: Executor,
  workspaceId: string,
  resource: CountedResource,
): number | Promise<number> {
  const row = queryFirst(ex, TOTAL, [workspaceId, resource]);
  return row instanceof Promise ? row.then((r) => Number(r?.total ?? 0)) : Number(row?.total ?? 0);
}
