// Migration 006 on a store that already holds calls: old rows get a null node_id, new rows keep
// theirs, the API rendering (005) does not show it, the sweep's lookup of a node's live calls goes
// through calls_status on both dialects, and down() takes the column away again.
import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, migratorFor, type Store } from '../database.js';
import { staleCallsOf } from '../../modules/calls/call-sweep.js';
import { emptyStoreKinds } from '../../../test/support/stores.js';

const kinds = emptyStoreKinds();
const migrator = (store: Store) => migratorFor(store.db);

const at = '2026-11-02T10:00:00.000Z';
const call = (id: string) => ({
  id,
  workspace_id: '01943a5c-8e00-7000-8000-0000000000aa',
  project_id: '01943a5c-8e00-7000-8000-0000000000bb',
  direction: 'inbound',
  status: 'in_progress',
  from_number: '+14155550100',
  to_number: '+14155550199',
  metadata: '{}',
  variables: '{}',
  started_at: at,
  created_at: at,
  updated_at: at,
});

async function columns(store: Store): Promise<string[]> {
  const { rows } = await (
    store.dialect === 'postgres'
      ? sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_name = 'calls' and table_schema = current_schema()`
      : sql<{ name: string }>`select name from pragma_table_xinfo('calls')`
  ).execute(store.db);
  return rows.map((r) => r.name);
}

/** The plan of the sweep's own query, with sequential scans off so only usable indexes show. */
async function sweepPlan(store: Store, node: string): Promise<string> {
  const { sql: text, parameters } = staleCallsOf(store.db, node).compile();
  return inTransaction(store.db, async (trx) => {
    if (store.dialect === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
    const explain = store.dialect === 'postgres' ? 'explain' : 'explain query plan';
    const { rows } = await trx.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(`${explain} ${text}`, [...parameters]),
    );
    return rows.map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
  });
}

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe.each(kinds)('migration 006 (call node) on $name', (kind) => {
  it('leaves old calls without a node, keeps new ones, hides it from the API, and goes back down', async () => {
    const store = await kind.open();
    stores.push(store);
    const m = await migrator(store);
    expect((await m.migrateTo('005-call-api-json')).error).toBeUndefined();
    const old = '01943a5c-8e00-7000-8000-000000000001';
    await store.db.insertInto('calls').values(call(old)).execute();
    const renderedBefore = (await store.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', old)
      .executeTakeFirstOrThrow()) as unknown as { api_json: string };

    expect((await m.migrateTo('006-call-node')).error).toBeUndefined();
    const fresh = '01943a5c-8e00-7000-8000-000000000002';
    await store.db
      .insertInto('calls')
      .values({ ...call(fresh), node_id: 'sip-a:5060' })
      .execute();
    const rows = await store.db.selectFrom('calls').selectAll().orderBy('id').execute();
    expect(rows.map((r) => r.node_id)).toEqual([null, 'sip-a:5060']);
    const rendered = rows.map((r) => (r as unknown as { api_json: string }).api_json);
    expect(rendered[0]).toBe(renderedBefore.api_json);
    expect(JSON.parse(rendered[1]!)).not.toHaveProperty('node_id');

    expect(await sweepPlan(store, 'sip-a:5060')).toContain('calls_status');
    expect(await staleCallsOf(store.db, 'sip-a:5060').execute()).toHaveLength(2);
    expect(await staleCallsOf(store.db, 'sip-b:5060').execute()).toEqual([
      { id: old, status: 'in_progress' },
    ]);

    expect((await m.migrateTo('005-call-api-json')).error).toBeUndefined();
    expect(await columns(store)).not.toContain('node_id');
    expect(await columns(store)).toContain('api_json');
    expect(await store.db.selectFrom('calls').select('id').orderBy('id').execute()).toEqual([
      { id: old },
      { id: fresh },
    ]);
  });
});
