// SQL for api_keys.
import type { PageParams } from '../../shared/paging.js';
import type { Db, Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryFirst } from '../../store/prepared.js';
import type { ApiKeyTable } from '../../store/schema.js';

/** What authentication needs of a key. */
export type KeyForAuth = Pick<
  ApiKeyTable,
  'id' | 'workspace_id' | 'key_hash' | 'scopes' | 'last_used_at' | 'revoked_at'
>;

// Every authenticated request runs this one, so it is written once and kept prepared.
const KEY_BY_HASH = preparedQuery<KeyForAuth>(
  'api_key_by_hash',
  'select id, workspace_id, key_hash, scopes, last_used_at, revoked_at from api_keys where key_hash = $1',
);

/** server_settings row that every key revocation rewrites (key-cache.ts). */
const KEY_EPOCH = 'api_keys_epoch';

export const apiKeysRepo = {
  /** The key with this hash, revoked or not, from the store (the auth plugin's cache sits in front). */
  findByHash(ex: Executor, hash: string): KeyForAuth | undefined | Promise<KeyForAuth | undefined> {
    return queryFirst(ex, KEY_BY_HASH, [hash]);
  },

  find(ex: Executor, workspaceId: string, id: string): Promise<ApiKeyTable | undefined> {
    return ex
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  },

  /** The workspace's keys that are not revoked, a page of them. */
  listLive(ex: Executor, workspaceId: string, page: PageParams) {
    const base = ex
      .selectFrom('api_keys')
      .where('workspace_id', '=', workspaceId)
      .where('revoked_at', 'is', null);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  async insert(ex: Executor, row: ApiKeyTable): Promise<void> {
    await ex.insertInto('api_keys').values(row).execute();
  },

  async touch(ex: Executor, id: string, at: string): Promise<void> {
    await ex.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  },

  /**
   * Revokes a live key and moves the store's key epoch (a fresh `epoch` value) in one transaction,
   * so every node's key cache learns of it even when no live-event bus carries the news.
   */
  async revoke(db: Db, workspaceId: string, id: string, at: string, epoch: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('server_settings')
        .values({ name: KEY_EPOCH, value: epoch })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value: epoch }))
        .execute();
      return true;
    });
  },

  /** The store's key epoch: changes whenever a key is revoked; null before the first revocation. */
  async keyEpoch(ex: Executor): Promise<string | null> {
    const row = await ex
      .selectFrom('server_settings')
      .select('value')
      .where('name', '=', KEY_EPOCH)
      .executeTakeFirst();
    return row?.value ?? null;
  },
};
