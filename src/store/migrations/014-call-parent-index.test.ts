// Migration 014: the index that serves GET /calls?parent_call_id= is there after up() and gone after down().
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migratorFor, type Store } from '../database.js';
import { emptyStoreKinds } from '../../../test/support/stores.js';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/** The index names on this store's calls table (its own schema: tests share one database). */
async function callIndexes(store: Store, kind: string): Promise<string[]> {
  const rows =
    kind === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_index_list('calls')`.execute(store.db)
      : await sql<{
          name: string;
        }>`select indexname as name from pg_indexes
          where tablename = 'calls' and schemaname = current_schema()`.execute(store.db);
  return rows.rows.map((r) => r.name);
}

describe.each(emptyStoreKinds())('migration 014 (call parent index) on $name', (kind) => {
  it('adds calls_parent and takes it away again', async () => {
    const store = await kind.open();
    stores.push(store);
    const m = await migratorFor(store.db);
    expect((await m.migrateTo('013-conversation-steps')).error).toBeUndefined();
    expect(await callIndexes(store, kind.name)).not.toContain('calls_parent');
    expect((await m.migrateTo('014-call-parent-index')).error).toBeUndefined();
    expect(await callIndexes(store, kind.name)).toContain('calls_parent');
    expect((await m.migrateTo('013-conversation-steps')).error).toBeUndefined();
    expect(await callIndexes(store, kind.name)).not.toContain('calls_parent');
  });
});
