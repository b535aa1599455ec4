// The schema-scoped introspector (PostgreSQL): it sees only the store's own schema, and it keeps
// answering while another schema of the same database changes its tables. Kysely's own
// introspector reads every schema and fails under that churn ("column … does not exist"), which
// made a migration fail whenever another schema's migration ran beside it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openStore, type Store } from './database.js';

const url = process.env.TEST_DATABASE_URL;
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function store(): Promise<Store> {
  const s = await openStore({
    databaseUrl: url!,
    pgSchema: `t_${randomBytes(6).toString('hex')}`,
    pgPoolSize: 2,
  });
  stores.push(s);
  return s;
}

describe.runIf(url)('schema-scoped PostgreSQL introspection', () => {
  it('lists the tables of its own schema only, the migration tables when asked', async () => {
    const mine = await store();
    const other = await store();
    await migrateToLatest(mine.db);
    await other.db.schema.createTable('only_elsewhere').addColumn('id', 'integer').execute();
    const tables = await mine.db.introspection.getTables();
    const names = tables.map((t) => t.name);
    expect(names).toContain('calls');
    expect(names).not.toContain('only_elsewhere');
    expect(names).not.toContain('kysely_migration');
    expect(new Set(tables.map((t) => t.schema)).size).toBe(1);
    const all = (await mine.db.introspection.getTables({ withInternalKyselyTables: true })).map(
      (t) => t.name,
    );
    expect(all).toEqual(expect.arrayContaining(['kysely_migration', 'kysely_migration_lock']));
    const calls = tables.find((t) => t.name === 'calls')!;
    expect(calls.columns.find((c) => c.name === 'id')).toMatchObject({ dataType: 'text', isNullable: false });
    expect(calls.columns.find((c) => c.name === 'node_id')).toMatchObject({ isNullable: true });
    expect((await other.db.introspection.getTables()).map((t) => t.name)).toEqual(['only_elsewhere']);
  });

  it('keeps answering, and migrating, while another schema creates and drops tables', async () => {
    const churnSchema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${churnSchema}`);
    let stop = false;
    const churn = (async () => {
      for (let n = 0; !stop; n++) {
        await admin.query(`create table ${churnSchema}.c${n % 4} (a int, b text, c serial)`);
        await admin.query(`drop table ${churnSchema}.c${n % 4}`);
      }
    })();
    try {
      const s = await store();
      await migrateToLatest(s.db);
      for (let i = 0; i < 100; i++) await s.db.introspection.getTables({ withInternalKyselyTables: true });
      const fresh = await store();
      expect(await migrateToLatest(fresh.db)).toContain('001-core');
    } finally {
      stop = true;
      await churn;
      await admin.query(`drop schema ${churnSchema} cascade`);
      await admin.end();
    }
  });
});
