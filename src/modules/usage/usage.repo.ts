// SQL for usage_events: one insert per metered quantity, and sums per workspace over a half-open
// time range [from, to), optionally split by day, project or provider. Every query leads with
// workspace_id, metric and occurred_at so it stays on the usage_events_workspace index.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../store/database.js';
import type { UsageEventTable } from '../../store/schema.js';
import { preparedQuery, queryExecute } from '../../store/prepared.js';
import { USAGE_METRICS, type UsageMetric } from './usage-metrics.js';

// Every call records usage three times or more: the insert is kept prepared.
const INSERT = preparedQuery<never>(
  'usage_insert',
  `insert into usage_events (id, workspace_id, project_id, metric, provider, quantity, occurred_at)
   values ($1, $2, $3, $4, $5, $6, $7)`,
);

/** First key of the two-int advisory lock: keeps quota locks apart from any other use. */
const QUOTA_LOCK_CLASS = 0x51554f54; // "QUOT"

export type UsageGrouping = 'metric' | 'day' | 'project' | 'provider';

export interface UsageSumRow {
  /** The day (YYYY-MM-DD), project id or provider; null for `metric` and for untagged events. */
  key: string | null;
  metric: string;
  total: number;
}

/** The grouping column; raw SQL so the SELECT and GROUP BY expressions are textually the same. */
function keyExpression(groupBy: Exclude<UsageGrouping, 'metric'>): RawBuilder<string | null> {
  switch (groupBy) {
    case 'day':
      // Stored timestamps are ISO 8601 UTC text, so the first ten characters are the UTC day.
      return sql.raw<string | null>('substr(occurred_at, 1, 10)');
    case 'project':
      return sql.raw<string | null>('project_id');
    case 'provider':
      return sql.raw<string | null>('provider');
  }
}

export const usageRepo = {
  /**
   * PostgreSQL only: takes the workspace's transaction-scoped quota lock, held until `trx` ends, so
   * a second quota check of the workspace waits for the first transaction to commit.
   */
  async lockQuota(trx: Executor, workspaceId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(${sql.lit(QUOTA_LOCK_CLASS)}, hashtext(${workspaceId}::text))`.execute(
      trx,
    );
  },

  async insert(ex: Executor, row: UsageEventTable): Promise<void> {
    const { id, workspace_id, project_id, metric, provider, quantity, occurred_at } = row;
    await queryExecute(ex, INSERT, [id, workspace_id, project_id, metric, provider, quantity, occurred_at]);
  },

  async sums(
    ex: Executor,
    workspaceId: string,
    range: { from: string; to: string },
    groupBy: UsageGrouping,
  ): Promise<UsageSumRow[]> {
    const base = ex
      .selectFrom('usage_events')
      .where('workspace_id', '=', workspaceId)
      .where('metric', 'in', [...USAGE_METRICS])
      .where('occurred_at', '>=', range.from)
      .where('occurred_at', '<', range.to);
    if (groupBy === 'metric') {
      const rows = await base
        .select(['metric', (eb) => eb.fn.sum<number | string>('quantity').as('total')])
        .groupBy('metric')
        .execute();
      return rows.map((r) => ({ key: null, metric: r.metric, total: Number(r.total ?? 0) }));
    }
    const key = keyExpression(groupBy);
    const rows = await base
      .select([key.as('key'), 'metric', (eb) => eb.fn.sum<number | string>('quantity').as('total')])
      .groupBy([key, 'metric'])
      .execute();
    return rows.map((r) => ({ key: r.key, metric: r.metric, total: Number(r.total ?? 0) }));
  },

  /** Total of one metric in [from, to): what a quota counts against its allowance. */
  async total(
    ex: Executor,
    workspaceId: string,
    metric: UsageMetric,
    range: { from: string; to: string },
  ): Promise<number> {
    const row = await ex
      .selectFrom('usage_events')
      .where('workspace_id', '=', workspaceId)
      .where('metric', '=', metric)
      .where('occurred_at', '>=', range.from)
      .where('occurred_at', '<', range.to)
      .select((eb) => eb.fn.sum<number | string>('quantity').as('total'))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  },
};
