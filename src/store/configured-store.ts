// The store a process works on, chosen one way for the server and every CLI command:
// DATABASE_URL when set, otherwise the SQLite file in SWITCHBOARD_DATA_DIR. Migrations run on open.
import path from 'node:path';
import type { Config } from '../config/config.js';
import { migrateToLatest, openStore, type Store, type StoreOptions } from './database.js';

export const SQLITE_FILE = 'switchboard.db';

export function storeOptionsFor(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  pgPoolSize = 10,
): StoreOptions {
  return config.databaseUrl
    ? { databaseUrl: config.databaseUrl, pgPoolSize }
    : { sqlitePath: path.join(config.dataDir, SQLITE_FILE) };
}

/** Opens and migrates the configured store; returns the names of migrations applied now. */
export async function openConfiguredStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  pgPoolSize?: number,
): Promise<{ store: Store; applied: string[] }> {
  const store = await openStore(storeOptionsFor(config, pgPoolSize));
  try {
    return { store, applied: await migrateToLatest(store.db) };
  } catch (err) {
    await store.close();
    throw err;
  }
}
