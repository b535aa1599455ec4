// Migration 011 on a store that already holds calls: old calls render as before plus
// parent_call_id (null), a leg's parent follows writes into the rendering, and down() restores 009's.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migratorFor, type Store } from '../database.js';
import { emptyStoreKinds } from '../../../test/support/stores.js';

const kinds = emptyStoreKinds();
const at = '2026-11-02T10:00:00.000Z';
const call = (id: string) => ({
  id,
  workspace_id: '01943a5c-8e00-7000-8000-0000000000aa',
  project_id: '01943a5c-8e00-7000-8000-0000000000bb',
  direction: 'outbound',
  status: 'in_progress',
  from_number: '+14155550100',
  to_number: '+14155550199',
  metadata: '{}',
  variables: '{}',
  started_at: at,
  created_at: at,
  updated_at: at,
});
const apiJson = async (store: Store, id: string) =>
  JSON.parse(
    (await sql<{ api_json: string }>`select api_json from calls where id = ${id}`.execute(store.db)).rows[0]!
      .api_json,
  ) as Record<string, unknown>;

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe.each(kinds)('migration 011 (call parent) on $name', (kind) => {
  it('adds parent_call_id to old and new calls, renders it last, and goes back down', async () => {
    const store = await kind.open();
    stores.push(store);
    const m = await migratorFor(store.db);
    expect((await m.migrateTo('010-trunk-registration')).error).toBeUndefined();
    const old = '01943a5c-8e00-7000-8000-000000000001';
    await store.db
      .insertInto('calls')
      .values({ ...call(old), answered_by: 'human' })
      .execute();
    const before = await apiJson(store, old);

    expect((await m.migrateTo('011-call-parent')).error).toBeUndefined();
    expect(await apiJson(store, old)).toEqual({ ...before, parent_call_id: null });
    const leg = '01943a5c-8e00-7000-8000-000000000002';
    await store.db
      .insertInto('calls')
      .values({ ...call(leg), parent_call_id: old })
      .execute();
    expect(Object.entries(await apiJson(store, leg)).slice(-2)).toEqual([
      ['answered_by', null],
      ['parent_call_id', old],
    ]);
    // The index finds a call's legs.
    const legs = await store.db.selectFrom('calls').select('id').where('parent_call_id', '=', old).execute();
    expect(legs).toEqual([{ id: leg }]);

    expect((await m.migrateTo('010-trunk-registration')).error).toBeUndefined();
    expect(await apiJson(store, old)).toEqual(before);
  });
});
