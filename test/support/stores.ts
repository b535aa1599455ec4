// Runs integration suites on every store this machine has: SQLite always, PostgreSQL when
// TEST_DATABASE_URL is set. Each PostgreSQL suite gets its own schema so files run side by side;
// the schemas are dropped once the whole run is over (global-setup.ts).
import { randomBytes } from 'node:crypto';
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
        // The schema stays until the run ends (test/support/global-setup.ts drops them all).
        return store;
      },
    });
  }
  return kinds;
}
