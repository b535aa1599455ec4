import { randomBytes } from 'node:crypto';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds, type StoreKind } from '../../test/support/stores.js';
import { newId } from '../shared/ids.js';
import { inTransaction, openStore, type Executor, type Store } from './database.js';
import { migrations } from './migrations/index.js';
import type { CallTable } from './schema.js';

/** The workspace's calls as resource_counts holds them (0 before its first). */
async function resourceTotal(ex: Executor, workspaceId: string, resource: 'calls'): Promise<number> {
  const row = await ex
    .selectFrom('resource_counts')
    .select('total')
    .where('workspace_id', '=', workspaceId)
    .where('resource', '=', resource)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Without node_id: the migration test below inserts it into a store from before 006. */
function call(workspaceId: string, at = '2026-11-02T10:00:00.000Z'): Omit<CallTable, 'node_id'> {
  return {
    id: newId(),
    workspace_id: workspaceId,
    project_id: 'p',
    workflow_id: null,
    workflow_version: null,
    session_id: null,
    phone_number_id: null,
    direction: 'inbound',
    status: 'queued',
    from_number: '+14155550100',
    to_number: '+14155550199',
    duration_seconds: null,
    hangup_reason: null,
    metadata: '{}',
    variables: '{}',
    sip_call_id: null,
    started_at: null,
    ended_at: null,
    created_at: at,
    updated_at: at,
  };
}

async function counted(store: Store, workspaceId: string): Promise<number> {
  const r = await store.db
    .selectFrom('calls')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(storeKinds())('resource counts on $name', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(() => store.close());

  it('follows every insert, bulk insert, delete, rollback and move of calls', async () => {
    const a = newId();
    const b = newId();
    expect(await resourceTotal(store.db, a, 'calls')).toBe(0);

    await store.db.insertInto('calls').values(call(a)).execute();
    await store.db
      .insertInto('calls')
      .values([call(a), call(a), call(b), call(a)])
      .execute();
    expect(await resourceTotal(store.db, a, 'calls')).toBe(4);
    expect(await resourceTotal(store.db, b, 'calls')).toBe(1);

    await expect(
      inTransaction(store.db, async (trx) => {
        await trx
          .insertInto('calls')
          .values([call(a), call(a)])
          .execute();
        expect(await resourceTotal(trx, a, 'calls')).toBe(6);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await resourceTotal(store.db, a, 'calls')).toBe(4);

    const [first] = await store.db.selectFrom('calls').select('id').where('workspace_id', '=', a).execute();
    await store.db.updateTable('calls').set({ status: 'completed' }).where('workspace_id', '=', a).execute();
    await store.db.updateTable('calls').set({ workspace_id: b }).where('id', '=', first!.id).execute();
    expect(await resourceTotal(store.db, a, 'calls')).toBe(3);
    expect(await resourceTotal(store.db, b, 'calls')).toBe(2);

    await store.db.deleteFrom('calls').where('workspace_id', '=', b).execute();
    await store.db.deleteFrom('calls').where('id', '=', first!.id).execute(); // already gone
    expect(await resourceTotal(store.db, b, 'calls')).toBe(0);
    for (const ws of [a, b])
      expect(await resourceTotal(store.db, ws, 'calls')).toBe(await counted(store, ws));
  });

  it('stays exact under concurrent inserting transactions', async () => {
    const ws = newId();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        inTransaction(store.db, (trx) => trx.insertInto('calls').values(call(ws)).execute()),
      ),
    );
    expect(await resourceTotal(store.db, ws, 'calls')).toBe(20);
    expect(await counted(store, ws)).toBe(20);
  });
});

// A store with no migrations run yet, of the same kind as `kind`.
async function emptyStore(kind: StoreKind): Promise<{ store: Store; migrationTableSchema?: string }> {
  if (kind.name === 'sqlite') return { store: await openStore({ sqlitePath: ':memory:' }) };
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const store = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL!, pgSchema: schema });
  return { store, migrationTableSchema: schema };
}

describe.each(storeKinds())('resource counts migration on $name', (kind) => {
  it('counts the calls stored before it ran', async () => {
    const { store, migrationTableSchema } = await emptyStore(kind);
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => migrations },
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
    expect((await migrator.migrateTo('002-webhooks')).error).toBeUndefined();
    const ws = newId();
    await store.db
      .insertInto('calls')
      .values([call(ws), call(ws), call(newId())])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await resourceTotal(store.db, ws, 'calls')).toBe(2);
    await store.db.insertInto('calls').values(call(ws)).execute();
    expect(await resourceTotal(store.db, ws, 'calls')).toBe(3);
    await store.close();
  });
});
