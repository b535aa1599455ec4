// Hot-path queries: SQL written once, by hand, and run without Kysely's builder and compiler.
// Building and compiling a Kysely query costs more than SQLite takes to answer a point query, so
// the few queries every request makes (the API key lookup, a single resource, a list page) are
// kept here as text, prepared once per connection and reused:
//   - SQLite: the statement is prepared once and run synchronously on the store's connection
//     whenever no transaction is open on it (autocommit: it sees exactly what is committed). While
//     some request holds a transaction open, the query waits its turn through Kysely like any other.
//   - PostgreSQL: a named prepared statement on the pool, so the server parses and plans it once
//     per connection.
// Any other executor (a transaction, a store opened elsewhere) runs the same text through Kysely.
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { CompiledQuery, PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { CachedStatement } from './sqlite-statements.js';
import { timedQuery } from './query-spans.js';

/** database.ts's Executor, spelled out here because database.ts imports this file. */
type Executor = Kysely<Database> | Transaction<Database>;

/** A query written with PostgreSQL placeholders ($1, $2, …; each may appear more than once). */
export interface PreparedQuery<R> {
  readonly name: string;
  readonly postgres: string;
  readonly sqlite: string;
  /** For each `?` of the SQLite text, which parameter (0-based) it takes. */
  readonly sqliteParams: readonly number[];
  /** Phantom: the row type. */
  readonly row?: R;
}

let queryCount = 0;

/**
 * Defines a hot-path query. `text` uses $1…$n and must suit both dialects, unless the query is
 * given per dialect (`{ sqlite, postgres }`, the same parameters in both).
 */
export function preparedQuery<R>(
  name: string,
  text: string | { sqlite: string; postgres: string },
): PreparedQuery<R> {
  const sqliteParams: number[] = [];
  const sqlite = sqliteLimits(typeof text === 'string' ? text : text.sqlite).replace(
    /\$(\d+)/g,
    (_, n: string) => {
      sqliteParams.push(Number(n) - 1);
      return '?';
    },
  );
  const postgres = typeof text === 'string' ? text : text.postgres;
  return { name: `sb_${name}_${++queryCount}`, postgres, sqlite, sqliteParams };
}

/**
 * `limit $n` becomes `limit cast($n as integer)` for SQLite. A LIMIT that is a bare parameter lets
 * SQLite's planner use the bound value, so binding it marks the statement expired and every run
 * prepares it again (sqlite3_prepare_v2: values that may change the plan trigger a recompile). As
 * an expression the value only limits rows: the statement is prepared once. A 25-row page read
 * costs about a third less.
 */
export function sqliteLimits(sqlText: string): string {
  return sqlText.replace(/\blimit\s+(\$\d+|\?)/gi, 'limit cast($1 as integer)');
}

interface SqliteFastPath {
  kind: 'sqlite';
  database: SQLite.Database;
  prepare(sqlText: string): CachedStatement;
}

interface PostgresFastPath {
  kind: 'postgres';
  pool: pg.Pool;
}

type FastPath = SqliteFastPath | PostgresFastPath;

const fastPaths = new WeakMap<object, FastPath>();

/** Called by openStore: lets hot-path queries on `db` reach the driver directly. */
export function registerFastPath(db: object, path: FastPath): void {
  fastPaths.set(db, path);
}

function sqliteArgs(q: PreparedQuery<unknown>, params: readonly unknown[]): unknown[] {
  const out = new Array<unknown>(q.sqliteParams.length);
  for (let i = 0; i < out.length; i++) out[i] = params[q.sqliteParams[i]!];
  return out;
}

function viaKysely<R>(ex: Executor, q: PreparedQuery<R>, params: readonly unknown[]): Promise<R[]> {
  const compiled =
    ex.getExecutor().adapter instanceof PostgresAdapter
      ? CompiledQuery.raw(q.postgres, params as unknown[])
      : CompiledQuery.raw(q.sqlite, sqliteArgs(q, params));
  return ex.executeQuery<R>(compiled).then((r) => r.rows);
}

/**
 * Runs a hot-path query; every row. On SQLite outside any transaction the answer is already
 * there (no await needed), so it comes back as a value, otherwise as a promise.
 */
export function queryRows<R>(
  ex: Executor,
  q: PreparedQuery<R>,
  params: readonly unknown[],
): R[] | Promise<R[]> {
  const path = ex.isTransaction ? undefined : fastPaths.get(ex);
  if (path?.kind === 'sqlite') {
    if (!path.database.inTransaction) {
      const statement = path.prepare(q.sqlite);
      return timedQuery('sqlite', q.sqlite, () => statement.all(sqliteArgs(q, params)) as R[]);
    }
  } else if (path?.kind === 'postgres') {
    const pool = path.pool;
    return timedQuery('postgresql', q.postgres, () =>
      pool
        .query<R & pg.QueryResultRow>({ name: q.name, text: q.postgres, values: params as unknown[] })
        .then((r) => r.rows),
    );
  }
  return viaKysely(ex, q, params);
}

/** The first row of a hot-path query, or undefined. */
export function queryFirst<R>(
  ex: Executor,
  q: PreparedQuery<R>,
  params: readonly unknown[],
): R | undefined | Promise<R | undefined> {
  const path = ex.isTransaction ? undefined : fastPaths.get(ex);
  if (path?.kind === 'sqlite' && !path.database.inTransaction) {
    const statement = path.prepare(q.sqlite);
    return timedQuery('sqlite', q.sqlite, () => statement.get(sqliteArgs(q, params)) as R | undefined);
  }
  const rows = queryRows(ex, q, params);
  return Array.isArray(rows) ? rows[0] : rows.then((r) => r[0]);
}

/**
 * Runs a hot-path write (insert, update, delete without `returning`); how many rows it changed.
 * On SQLite outside any transaction it runs at once (autocommit), as queryRows does for reads.
 */
export function queryExecute(
  ex: Executor,
  q: PreparedQuery<unknown>,
  params: readonly unknown[],
): Promise<number> {
  const path = ex.isTransaction ? undefined : fastPaths.get(ex);
  if (path?.kind === 'sqlite') {
    if (!path.database.inTransaction) {
      const statement = path.prepare(q.sqlite);
      return Promise.resolve(
        timedQuery('sqlite', q.sqlite, () => statement.run(sqliteArgs(q, params)).changes),
      );
    }
  } else if (path?.kind === 'postgres') {
    const pool = path.pool;
    return timedQuery('postgresql', q.postgres, () =>
      pool
        .query({ name: q.name, text: q.postgres, values: params as unknown[] })
        .then((r) => r.rowCount ?? 0),
    );
  }
  const compiled =
    ex.getExecutor().adapter instanceof PostgresAdapter
      ? CompiledQuery.raw(q.postgres, params as unknown[])
      : CompiledQuery.raw(q.sqlite, sqliteArgs(q, params));
  return ex.executeQuery(compiled).then((r) => Number(r.numAffectedRows ?? 0));
}
