// Migration 009 on a store that already holds calls: old calls render as before plus the three
// new fields (null), the new columns follow writes into the rendering, and down() restores 005's.
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

describe.each(kinds)('migration 009 (call recording) on $name', (kind) => {
  it('adds the fields to old and new calls, renders them, and goes back down', async () => {
    const store = await kind.open();
    stores.push(store);
    const m = await migratorFor(store.db);
    expect((await m.migrateTo('007-message-latency')).error).toBeUndefined();
    const old = '01943a5c-8e00-7000-8000-000000000001';
    await store.db.insertInto('calls').values(call(old)).execute();
    const before = await apiJson(store, old);

    expect((await m.migrateTo('009-call-recording')).error).toBeUndefined();
    expect(await apiJson(store, old)).toEqual({
      ...before,
      recording_url: null,
      recording_error: null,
      answered_by: null,
    });
    const row = await store.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', old)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ record: 0, machine_detection: 0, wait_for_beep: 0 });
    await store.db
      .updateTable('calls')
      .set({ recording_url: 'https://x/api/v1/calls/1/recording', answered_by: 'machine' })
      .where('id', '=', old)
      .execute();
    expect(Object.entries(await apiJson(store, old)).slice(-3)).toEqual([
      ['recording_url', 'https://x/api/v1/calls/1/recording'],
      ['recording_error', null],
      ['answered_by', 'machine'],
    ]);

    expect((await m.migrateTo('007-message-latency')).error).toBeUndefined();
    expect(await apiJson(store, old)).toEqual(before);
  });
});
