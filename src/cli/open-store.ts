// The store the commands work on, chosen exactly as the server chooses it: DATABASE_URL when set,
// otherwise the SQLite file in SWITCHBOARD_DATA_DIR. Migrations run first, so every command works
// on a fresh data directory and against a server running on the same store.
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import type { Store } from '../store/database.js';
import { openConfiguredStore } from '../store/configured-store.js';
import { CliError } from './io.js';

export { SQLITE_FILE, storeOptionsFor } from '../store/configured-store.js';

/** Opens and migrates the configured store with a small pool (commands are short-lived). */
export function openCliStore(config: Config): Promise<{ store: Store; applied: string[] }> {
  return openConfiguredStore(config, 2);
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
