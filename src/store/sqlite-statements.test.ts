import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statementCache } from './sqlite-statements.js';

describe('statementCache', () => {
  let db: SQLite.Database;
  let statements: ReturnType<typeof statementCache>;

  beforeEach(() => {
    db = new SQLite(':memory:');
    db.exec(
      "create table t (id text primary key, name text); insert into t values ('a', 'one'), ('b', 'two')",
    );
    statements = statementCache(db, 2);
  });
  afterEach(() => db.close());

  it('hands back the statement prepared for the same text, rows as objects in column order', () => {
    const first = statements('select id, name from t where id = ?');
    expect(statements('select id, name from t where id = ?')).toBe(first);
    expect(first.get(['a'])).toEqual({ id: 'a', name: 'one' });
    expect(Object.keys(first.get(['b']) as object)).toEqual(['id', 'name']);
    expect(statements('select id, name from t order by id').all([])).toEqual([
      { id: 'a', name: 'one' },
      { id: 'b', name: 'two' },
    ]);
  });

  it('keeps only the most recently used statements', () => {
    const one = statements('select 1');
    const two = statements('select 2');
    statements('select 1'); // used again: 'select 2' is now the least recently used
    statements('select 3'); // over the bound of 2: evicts 'select 2'
    expect(statements('select 1')).toBe(one);
    expect(statements('select 2')).not.toBe(two);
  });

  it('drops cached statements when the schema changes', () => {
    const cached = statements('select * from t');
    statements('alter table t add column extra text').run([]);
    const again = statements('select * from t');
    expect(again).not.toBe(cached);
    expect(again.all([])).toEqual([
      { id: 'a', name: 'one', extra: null },
      { id: 'b', name: 'two', extra: null },
    ]);
  });
});
