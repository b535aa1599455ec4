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
  return emptyStoreKinds().map((kind) => ({
    name: kind.name,
    async open() {
      const store = await kind.open();
      await migrateToLatest(store.db);
      return store;
    },
  }));
}

/** The same stores with no migration applied: for tests of the migrations themselves. */
export function emptyStoreKinds(): StoreKind[] {
  const kinds: StoreKind[] = [{ name: 'sqlite', open: () => openStore({ sqlitePath: ':memory:' }) }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    kinds.push({
      name: 'postgres',
      // The schema stays until the run ends (test/support/global-setup.ts drops them all).
      open: () =>
        openStore({ databaseUrl: url, pgSchema: `t_${randomBytes(6).toString('hex')}`, pgPoolSize: 5 }),
    });
  }
  return kinds;
}
