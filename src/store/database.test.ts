import { describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { pingStore } from './database.js';

describe.each(storeKinds())('store on $name', (kind) => {
  it('migrates and answers', async () => {
    const store = await kind.open();
    await pingStore(store.db);
    await store.db.insertInto('server_settings').values({ name: 'x', value: 'y' }).execute();
    const row = await store.db.selectFrom('server_settings').selectAll().executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'x', value: 'y' });
    await store.close();
  });
});
