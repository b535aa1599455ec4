// Authentication reads the key from the store on every request (prepared query, nothing cached):
// a key revoked or deleted by any writer — the API, the CLI in another process, a transaction —
// fails on the very next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { storeKinds } from '../../../test/support/stores.js';
import { inTransaction } from '../../store/database.js';

describe.each(storeKinds())('authentication on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  const newKey = async () => {
    const res = await t.call('POST', '/api/v1/api-keys', { body: { name: 'k', scopes: ['read'] } });
    return (res.data as { data: { id: string; key: string } }).data;
  };
  const status = async (key: string) => (await t.call('GET', '/api/v1/projects', { key })).statusCode;

  it('refuses a key revoked straight in the store: at once on SQLite, on PostgreSQL once its cache is cleared', async () => {
    const k = await newKey();
    for (let i = 0; i < 3; i++) expect(await status(k.key)).toBe(200);
    await t.store.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', k.id)
      .execute();
    // PostgreSQL nodes remember found keys (key-cache.ts); every revocation path (the API, the
    // CLI, through the bus or the store epoch) clears that memory, a bare UPDATE does not.
    if (kind.name === 'postgres') {
      expect(await status(k.key)).toBe(200);
      t.deps.keyCache!.clear();
    }
    expect(await status(k.key)).toBe(401);
  });

  it('refuses a deleted key on the next request', async () => {
    const k = await newKey();
    expect(await status(k.key)).toBe(200);
    await t.store.db.deleteFrom('api_keys').where('id', '=', k.id).execute();
    t.deps.keyCache?.clear(); // as every revocation path does
    expect(await status(k.key)).toBe(401);
  });

  it('refuses a key as soon as the transaction revoking it commits', async () => {
    const k = await newKey();
    expect(await status(k.key)).toBe(200);
    let commit!: () => void;
    const held = new Promise<void>((r) => (commit = r));
    let revoked!: () => void;
    const written = new Promise<void>((r) => (revoked = r));
    const trx = inTransaction(t.store.db, async (trx) => {
      await trx
        .updateTable('api_keys')
        .set({ revoked_at: new Date().toISOString() })
        .where('id', '=', k.id)
        .execute();
      revoked();
      await held;
    });
    await written;
    // While the revocation is uncommitted: PostgreSQL still sees the key; SQLite's single
    // connection makes the request wait for the transaction, which then answers 401.
    const during = status(k.key);
    if (kind.name === 'postgres') expect(await during).toBe(200);
    commit();
    await trx;
    t.deps.keyCache?.clear(); // what revokeApiKey does once its transaction commits
    if (kind.name === 'sqlite') expect(await during).toBe(401);
    expect(await status(k.key)).toBe(401);
  });
});
