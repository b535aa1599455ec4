// What every service receives: the store, the clock, configuration and server keys. Routes build
// an Actor from the API key; services scope every query by actor.workspaceId.
import type { Config } from '../config/config.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { ServerKeys } from '../shared/server-key.js';
import type { Db, Dialect } from '../store/database.js';
import type { KeyCache } from './api-keys/key-cache.js';
import type { Scope } from './api-keys/scopes.js';
import type { DispatchCache } from './calls/dispatch-cache.js';

export interface Actor {
  workspaceId: string;
  keyId: string;
  scopes: ReadonlySet<Scope>;
}

export interface ServiceDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  newId: IdGenerator;
  config: Config;
  keys: ServerKeys;
  secretBox: SecretBox;
  logger: Logger;
  /** Found API keys, briefly (PostgreSQL only; null on SQLite, whose reads are in-process). */
  keyCache: KeyCache | null;
  /**
   * Inbound admission's lookups of called numbers (modules/calls/dispatch-cache.ts); without one
   * (some tests), every INVITE reads them from the store.
   */
  dispatchCache?: DispatchCache | null;
}
