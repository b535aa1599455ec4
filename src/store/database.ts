// Opens the store: embedded SQLite (WAL) by default, PostgreSQL when a URL is given.
// Both go through one Kysely instance so repositories are written once.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresAdapter,
  SqliteDialect,
  SqliteQueryCompiler,
  sql,
  type LimitNode,
  type QueryCompiler,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type Transaction,
} from 'kysely';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { registerFastPath } from './prepared.js';
import { statementCache } from './sqlite-statements.js';
import { SchemaScopedPostgresDialect } from './pg-introspector.js';
import { kyselyQuerySpans } from './query-spans.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface Store {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string;
  /** SQLite file; ':memory:' for a throwaway database. */
  sqlitePath?: string;
  /** PostgreSQL schema to use (created if missing); lets tests run side by side. */
  pgSchema?: string;
  pgPoolSize?: number;
}

/**
 * SQLite's default `BEGIN` is deferred: a transaction that reads, then writes while another process
 * (the CLI, say) wrote in between fails with SQLITE_BUSY instead of waiting. `BEGIN IMMEDIATE` takes
 * the write lock up front, so busy_timeout applies and transactions queue instead of failing.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new SqliteLimitCompiler();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

/** Kysely's SQLite SQL with the LIMIT as an expression (see sqliteLimits in prepared.ts: why). */
class SqliteLimitCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const schema = options.pgSchema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const admin = new pg.Client({ connectionString: options.databaseUrl });
      await admin.connect();
      await admin.query(`create schema if not exists ${schema}`);
      await admin.end();
    }
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.pgPoolSize ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    const log = kyselyQuerySpans('postgresql');
    const db = new Kysely<Database>({
      dialect: new SchemaScopedPostgresDialect({ pool }),
      ...(log ? { log } : {}),
    });
    registerFastPath(db, { kind: 'postgres', pool });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const file = options.sqlitePath ?? ':memory:';
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // A file's WAL is checkpointed on a thread of its own, off the event loop (wal-checkpointer.ts).
  // Not waited for (the thread takes ~100 ms to start, a CLI command's whole run): until it is up
  // the connection checkpoints for itself, as it does should the thread fail.
  const checkpointer = file === ':memory:' ? null : WalCheckpointer.start(sqlite, file);
  const prepare = statementCache(sqlite);
  const database: SqliteDatabase = {
    close: () => sqlite.close(),
    prepare: (sqlText: string) => prepare(sqlText) as unknown as ReturnType<SqliteDatabase['prepare']>,
  };
  const log = kyselyQuerySpans('sqlite');
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database }),
    ...(log ? { log } : {}),
  });
  registerFastPath(db, { kind: 'sqlite', database: sqlite, prepare });
  const close = async () => {
    // The thread's connection first: the store's, closing last, runs the final checkpoint.
    await checkpointer?.close();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', close };
}

/** The migrator over every migration, its bookkeeping tables in the connection's own schema. */
export async function migratorFor(db: Kysely<Database>): Promise<Migrator> {
  // Kysely looks for its migration tables in every schema unless told which one; with several
  // PostgreSQL schemas side by side (tests, or two apps on one database) it would find another
  // schema's table, skip creating its own and then fail. Pin it to the connection's schema.
  const migrationTableSchema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
}

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = await migratorFor(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Checks the store answers; used by GET /healthz. */
export async function pingStore(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Runs work in one transaction: everything a request writes lands together or not at all. */
export function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}

/** Store timestamps: ISO 8601 UTC with milliseconds, which sorts correctly as text. */
export function toDbTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}
