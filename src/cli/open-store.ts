// The store the commands work on, chosen exactly as the server chooses it: DATABASE_URL when set,
// otherwise the SQLite file in SWITCHBOARD_DATA_DIR. Migrations run first, so every command works
// on a fresh data directory and against a server running on the same store.
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { migrateToLatest, openStore, type Store, type StoreOptions } from '../store/database.js';
import { CliError } from './io.js';

export const SQLITE_FILE = 'switchboard.db';

export function storeOptionsFor(config: Pick<Config, 'databaseUrl' | 'dataDir'>): StoreOptions {
  return config.databaseUrl
    ? { databaseUrl: config.databaseUrl, pgPoolSize: 2 }
    : { sqlitePath: path.join(config.dataDir, SQLITE_FILE) };
}

/** Opens and migrates the configured store; returns the names of migrations applied now. */
export async function openCliStore(config: Config): Promise<{ store: Store; applied: string[] }> {
  const store = await openStore(storeOptionsFor(config));
  try {
    return { store, applied: await migrateToLatest(store.db) };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Runs `fn` on the migrated store and always closes it. */
export async function withStore<T>(
  config: Config,
  fn: (store: Store, applied: string[]) => Promise<T>,
): Promise<T> {
  const { store, applied } = await openCliStore(config);
  try {
    return await fn(store, applied);
  } finally {
    await store.close();
  }
}

/** The configuration from the command's environment; a bad variable is a one-line failure. */
export function cliConfig(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`);
    throw err;
  }
}
