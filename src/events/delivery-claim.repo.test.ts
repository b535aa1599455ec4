import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDbTime, type Store } from '../store/database.js';
import { storeKinds } from '../../test/support/stores.js';
import { CLAIM_POSTGRES } from './delivery-claim.repo.js';

const postgres = storeKinds().filter((k) => k.name === 'postgres');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Rows every scan of `table` in the plan produced, summed over its loops. */
function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable'
      ? node['Actual Rows'] * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + rowsRead(p, table), 0);
}

describe.each(postgres)('claiming on $name', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(async () => {
    await store.close();
  });

  it('reads about `limit` candidate rows however long one endpoint’s backlog, in the plan the server caches', async () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const due = toDbTime(now - 60_000);
    // One endpoint with 2,000 due deliveries, and planner statistics on them (autovacuum takes
    // them on a live table within a minute of a burst).
    await sql`insert into webhook_events (id, workspace_id, project_id, type, body, created_at)
      select 'ev' || i, 'ws', 'p', 'call.ended', '{}', ${due} from generate_series(1, 2000) i`.execute(
      store.db,
    );
    await sql`insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, status,
        attempt_count, round_start, next_attempt_at, created_at, updated_at)
      select 'dl' || i, 'ws', 'ep', 'ev' || i, 'call.ended', 'pending', 0, 0, ${due}, ${due}, ${due}
      from generate_series(1, 2000) i`.execute(store.db);
    await sql`analyze webhook_deliveries`.execute(store.db);

    const plan = await store.db
      .transaction()
      .execute(async (trx) => {
        // The plan a named statement gets after its first few runs: one for any parameters.
        await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
        await sql.raw(`prepare claim_plan_test as ${CLAIM_POSTGRES.postgres}`).execute(trx);
        const lease = toDbTime(now + 60_000);
        const { rows } = await sql<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>`explain (analyze, format json)
          execute claim_plan_test('w1', ${sql.lit(lease)}, ${sql.lit(toDbTime(now))}, '{}', '{}', 16, 16)`.execute(
          trx,
        );
        await sql`deallocate claim_plan_test`.execute(trx);
        throw Object.assign(new Error('roll back'), { plan: rows[0]!['QUERY PLAN'][0]!.Plan });
      })
      .catch((e: Error & { plan?: PlanNode }) => {
        if (!e.plan) throw e;
        return e.plan;
      });

    // 16 candidates from the pending index and 16 primary-key probes to lease them; never the
    // whole backlog.
    expect(rowsRead(plan, 'webhook_deliveries')).toBeLessThanOrEqual(64);
  });
});
