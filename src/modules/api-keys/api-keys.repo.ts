// SQL for api_keys.
import type { Executor } from '../../store/database.js';
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

export const apiKeysRepo = {
  /** The key with this hash, revoked or not; read from the store on every call (no caching). */
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

  async insert(ex: Executor, row: ApiKeyTable): Promise<void> {
    await ex.insertInto('api_keys').values(row).execute();
  },

  async touch(ex: Executor, id: string, at: string): Promise<void> {
    await ex.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  },

  async revoke(ex: Executor, workspaceId: string, id: string, at: string): Promise<boolean> {
    const r = await ex
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
};
