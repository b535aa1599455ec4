// The SQLite connection's statements, prepared once and reused.
//
// Kysely's SQLite driver prepares every statement anew; preparing costs more than running a point
// query. Statements are reusable, so the most recent ones are kept by SQL text (bounded, least
// recently used out). Safe because every statement runs to completion, synchronously, before the
// next one starts, and nothing streams.
//
// Rows: better-sqlite3 builds each row object property by property, which costs about as much as
// reading the row. Readers run in raw mode (arrays) instead, and each array becomes an object
// through a function made once per statement from its column names: same keys, same order, same
// values, about twice as fast for wide rows.
import type SQLite from 'better-sqlite3';

export interface CachedStatement {
  readonly reader: boolean;
  all(params: readonly unknown[]): unknown[];
  get(params: readonly unknown[]): unknown;
  run(params: readonly unknown[]): SQLite.RunResult;
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/** `(a) => ({ "id": a[0], "name": a[1], … })`, compiled once per column list. */
function rowBuilder(columns: readonly string[]): RowBuilder {
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: a[${i}]`).join(', ');
  return new Function('a', `return { ${fields} };`) as RowBuilder;
}

function wrap(stmt: SQLite.Statement): CachedStatement {
  if (!stmt.reader) {
    return {
      reader: false,
      all: (params) => stmt.all(params),
      get: (params) => stmt.get(params),
      run: (params) => stmt.run(params),
      iterate: (params) => stmt.iterate(params),
    };
  }
  stmt.raw(true);
  let width = 0;
  let build: RowBuilder = () => ({});
  // SQLite re-prepares a statement whose tables changed, and `select *` then has other columns.
  const builderFor = (row: unknown[]): RowBuilder => {
    if (row.length !== width) {
      const columns = stmt.columns().map((c) => c.name);
      width = columns.length;
      build = rowBuilder(columns);
    }
    return build;
  };
  return {
    reader: true,
    all(params) {
      const rows = stmt.all(params) as unknown[][];
      if (rows.length === 0) return rows;
      const make = builderFor(rows[0]!);
      for (let i = 0; i < rows.length; i++) (rows as unknown[])[i] = make(rows[i]!);
      return rows;
    },
    get(params) {
      const row = stmt.get(params) as unknown[] | undefined;
      return row === undefined ? undefined : builderFor(row)(row);
    },
    run: (params) => stmt.run(params),
    *iterate(params) {
      for (const row of stmt.iterate(params)) yield builderFor(row as unknown[])(row as unknown[]);
    },
  };
}

const DDL = /^\s*(create|alter|drop)\b/i;

/**
 * Prepares SQL on `db`, or hands back the statement prepared earlier for the same text. A schema
 * change (migrations) empties the cache, so no statement outlives the tables it was made for.
 */
export function statementCache(db: SQLite.Database, max = 500): (sqlText: string) => CachedStatement {
  const cache = new Map<string, CachedStatement>();
  return (sqlText: string) => {
    if (DDL.test(sqlText)) {
      cache.clear();
      return wrap(db.prepare(sqlText));
    }
    let stmt = cache.get(sqlText);
    if (stmt) {
      cache.delete(sqlText);
    } else {
      stmt = wrap(db.prepare(sqlText));
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(sqlText, stmt);
    return stmt;
  };
}
