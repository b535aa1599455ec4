// SQL for api_keys.
import type { Executor } from '../../store/database.js';
import type { ApiKeyTable } from '../../store/schema.js';

export const apiKeysRepo = {
  findByHash(ex: Executor, hash: string): Promise<ApiKeyTable | undefined> {
    return ex.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
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
