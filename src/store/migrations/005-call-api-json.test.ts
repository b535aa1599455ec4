// Migration 005 on a store that already holds calls: existing rows get their API JSON, the rebuilt
// SQLite table keeps its indexes and the resource-count triggers, new and updated rows are
// rendered by the store, and down() gives the old table back.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migratorFor, type Store } from '../database.js';
import { emptyStoreKinds } from '../../../test/support/stores.js';

const kinds = emptyStoreKinds();
const migrator = (store: Store) => migratorFor(store.db);

const WS = '01943a5c-8e00-7000-8000-0000000000aa';

function callRow(id: string, at: string, metadata: string) {
  return {
    id,
    workspace_id: WS,
    project_id: '01943a5c-8e00-7000-8000-0000000000bb',
    workflow_id: null,
    workflow_version: null,
    session_id: null,
    phone_number_id: null,
    direction: 'outbound',
    status: 'queued',
    from_number: '+14155550100',
    to_number: '+14155550199',
    duration_seconds: null,
    hangup_reason: null,
    metadata,
    variables: '{}',
    sip_call_id: null,
    started_at: null,
    ended_at: null,
    created_at: at,
    updated_at: at,
  };
}

async function apiJson(store: Store, id: string): Promise<string> {
  const { rows } = await sql<{ api_json: string }>`select api_json from calls where id = ${id}`.execute(
    store.db,
  );
  return rows[0]!.api_json;
}

async function total(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('resource_counts')
    .select('total')
    .where('workspace_id', '=', WS)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe.each(kinds)('migration 005 (call API JSON) on $name', (kind) => {
  it('renders existing calls, keeps indexes and counters, follows later writes, and goes back down', async () => {
    const store = await kind.open();
    stores.push(store);
    const m = await migrator(store);
    expect((await m.migrateTo('004-webhook-queue-retention')).error).toBeUndefined();

    const old = '01943a5c-8e00-7000-8000-000000000001';
    await store.db
      .insertInto('calls')
      .values(callRow(old, '2026-11-02T10:00:00.123Z', '{"crm":"a\\"b","n":1.5}'))
      .execute();
    expect(await total(store)).toBe(1);

    expect((await m.migrateTo('005-call-api-json')).error).toBeUndefined();
    expect(JSON.parse(await apiJson(store, old))).toEqual({
      id: old,
      direction: 'outbound',
      status: 'queued',
      from: '+14155550100',
      to: '+14155550199',
      project_id: '01943a5c-8e00-7000-8000-0000000000bb',
      workflow_id: null,
      workflow_version: null,
      session_id: null,
      duration_seconds: null,
      hangup_reason: null,
      metadata: { crm: 'a"b', n: 1.5 },
      started_at: null,
      ended_at: null,
      created_at: '2026-11-02T10:00:00Z',
    });

    // The counter triggers and the list index came through the rebuild.
    const fresh = '01943a5c-8e00-7000-8000-000000000002';
    await store.db
      .insertInto('calls')
      .values(callRow(fresh, '2026-11-02T10:01:00.000Z', ''))
      .execute();
    expect(await total(store)).toBe(2);
    expect(JSON.parse(await apiJson(store, fresh)).metadata).toEqual({});
    await store.db
      .updateTable('calls')
      .set({ status: 'completed', hangup_reason: 'callee_hangup', ended_at: '2026-11-02T10:02:00.999Z' })
      .where('id', '=', fresh)
      .execute();
    expect(JSON.parse(await apiJson(store, fresh))).toMatchObject({
      status: 'completed',
      hangup_reason: 'callee_hangup',
      ended_at: '2026-11-02T10:02:00Z',
    });
    await store.db.deleteFrom('calls').where('id', '=', fresh).execute();
    expect(await total(store)).toBe(1);
    if (store.dialect === 'sqlite') {
      const { rows } = await sql<{ detail: string }>`
        explain query plan select api_json from calls where workspace_id = ${WS}
        order by created_at desc, id desc limit 25`.execute(store.db);
      expect(rows.map((r) => r.detail).join(' ')).toContain('calls_workspace');
    }

    expect((await m.migrateTo('004-webhook-queue-retention')).error).toBeUndefined();
    const { rows: columns } = await (
      store.dialect === 'postgres'
        ? sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_name = 'calls' and table_schema = current_schema()`
        : sql<{ name: string }>`select name from pragma_table_info('calls')`
    ).execute(store.db);
    expect(columns.map((c) => c.name)).not.toContain('api_json');
    expect(columns).toHaveLength(20);
  });
});
