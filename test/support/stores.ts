// Runs integration suites on every store this machine has: SQLite always, PostgreSQL when
// TEST_DATABASE_URL is set. Each PostgreSQL suite gets its own schema so files run side by side.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  open(): Promise<Store>;
}

export function storeKinds(): StoreKind[] {
  const kinds: StoreKind[] = [
    {
      name: 'sqlite',
      async open() {
        const store = await openStore({ sqlitePath: ':memory:' });
        await migrateToLatest(store.db);
        return store;
      },
    },
  ];
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    kinds.push({
      name: 'postgres',
      async open() {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        const store = await openStore({ databaseUrl: url, pgSchema: schema, pgPoolSize: 5 });
        await migrateToLatest(store.db);
        return {
          ...store,
          async close() {
            await store.close();
            const c = new pg.Client({ connectionString: url });
            await c.connect();
            await c.query(`drop schema if exists ${schema} cascade`);
            await c.end();
          },
        };
      },
    });
  }
  return kinds;
}
