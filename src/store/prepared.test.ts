import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { inTransaction, type Store } from './database.js';
import { preparedQuery, queryFirst, queryRows, sqliteLimits } from './prepared.js';

interface Setting {
  name: string;
  value: string;
}

// $2 before $1, and $1 twice: SQLite's `?` take them in the order written.
const BY_NAME_OR_VALUE = preparedQuery<Setting>(
  'test_settings',
  'select name, value from server_settings where value = $2 or name = $1 or name = $1 || $3 order by name',
);
const ONE = preparedQuery<Setting>('test_setting', 'select name, value from server_settings where name = $1');

// A bare `limit ?` would make SQLite prepare the statement again on every run (see sqliteLimits).
describe('LIMIT on SQLite', () => {
  it('is written as an expression, in prepared queries and in Kysely queries', () => {
    expect(sqliteLimits('select 1 from t order by a limit $2 offset $3')).toBe(
      'select 1 from t order by a limit cast($2 as integer) offset $3',
    );
    expect(sqliteLimits('select 1 from t LIMIT ?')).toBe('select 1 from t limit cast(? as integer)');
    expect(sqliteLimits('select 1 from t limit 5')).toBe('select 1 from t limit 5');
    expect(preparedQuery('test_limit', 'select a from t limit $1').sqlite).toBe(
      'select a from t limit cast(? as integer)',
    );
  });
});

const FIRST_N = preparedQuery<Setting>(
  'test_first_n',
  'select name, value from server_settings order by name limit $1 offset $2',
);

describe.each(storeKinds())('prepared queries on $name', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open();
    await store.db
      .insertInto('server_settings')
      .values([
        { name: 'a', value: '1' },
        { name: 'ax', value: '2' },
        { name: 'b', value: '3' },
        { name: 'c', value: '4' },
      ])
      .execute();
  });
  afterAll(() => store.close());

  it('binds $n placeholders by number, in any order and more than once', async () => {
    expect(await queryRows(store.db, BY_NAME_OR_VALUE, ['a', '3', 'x'])).toEqual([
      { name: 'a', value: '1' },
      { name: 'ax', value: '2' },
      { name: 'b', value: '3' },
    ]);
    expect(await queryFirst(store.db, ONE, ['c'])).toEqual({ name: 'c', value: '4' });
    expect(await queryFirst(store.db, ONE, ['nope'])).toBeUndefined();
  });

  it('takes LIMIT and OFFSET as parameters, new values on every run', async () => {
    expect((await queryRows(store.db, FIRST_N, [2, 0])).map((r) => r.name)).toEqual(['a', 'ax']);
    expect((await queryRows(store.db, FIRST_N, [1, 2])).map((r) => r.name)).toEqual(['b']);
    const built = (n: number) =>
      store.db.selectFrom('server_settings').select('name').orderBy('name').limit(n);
    expect((await built(3).execute()).map((r) => r.name)).toEqual(['a', 'ax', 'b']);
    expect((await built(1).execute()).map((r) => r.name)).toEqual(['a']);
    if (kind.name === 'sqlite') expect(built(1).compile().sql).toContain('limit cast(? as integer)');
  });

  it('answers SQLite without a promise outside transactions', () => {
    const row = queryFirst(store.db, ONE, ['b']);
    if (kind.name === 'sqlite') expect(row).toEqual({ name: 'b', value: '3' });
    else expect(row).toBeInstanceOf(Promise);
  });

  it('never reads another request’s uncommitted writes, and sees them once committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const written = new Promise<void>((r) => (inserted = r));
    const trx = inTransaction(store.db, async (t) => {
      await t.insertInto('server_settings').values({ name: 'pending', value: 'p' }).execute();
      inserted();
      await held;
    });
    await written;
    // Outside the transaction: not visible (SQLite waits for the transaction to end first).
    const during = Promise.resolve(queryFirst(store.db, ONE, ['pending']));
    if (kind.name === 'postgres') expect(await during).toBeUndefined();
    release();
    await trx;
    if (kind.name === 'sqlite') expect(await during).toEqual({ name: 'pending', value: 'p' });
    expect(await queryFirst(store.db, ONE, ['pending'])).toEqual({ name: 'pending', value: 'p' });
  });

  it('runs inside a transaction, seeing its own writes', async () => {
    const seen = await inTransaction(store.db, async (t) => {
      await t.insertInto('server_settings').values({ name: 'in-trx', value: 't' }).execute();
      return queryFirst(t, ONE, ['in-trx']);
    });
    expect(seen).toEqual({ name: 'in-trx', value: 't' });
  });

  it('returns the same rows as the query builder', async () => {
    const built = await store.db.selectFrom('server_settings').selectAll().orderBy('name').execute();
    const raw = await queryRows(
      store.db,
      preparedQuery<Setting>('test_all', 'select * from server_settings order by name'),
      [],
    );
    expect(raw).toEqual(built);
    expect(Object.keys(raw[0]!)).toEqual(['name', 'value']);
  });
});
