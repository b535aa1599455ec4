// SQL for idempotency_keys (idempotency.ts): a key is taken by inserting it, read back when the
// insert finds it taken, settled with the response it replays, and freed by deleting it. Every
// query is scoped by workspace.
import type { Executor } from '../../store/database.js';
import type { IdempotencyKeyTable } from '../../store/schema.js';

export const idempotencyRepo = {
  /** Takes the key: true when this insert made the row, false when the key was already taken. */
  async take(ex: Executor, row: IdempotencyKeyTable): Promise<boolean> {
    const inserted = await ex
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['workspace_id', 'key']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  find(ex: Executor, workspaceId: string, key: string): Promise<IdempotencyKeyTable | undefined> {
    return ex
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .executeTakeFirst();
  },

  /** Frees a stale key, only if it is still the one taken at `createdAt` (not a newer taker's). */
  async deleteTakenAt(ex: Executor, workspaceId: string, key: string, createdAt: string): Promise<void> {
    await ex
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .where('created_at', '=', createdAt)
      .execute();
  },

  /** Keeps the response a retry with the same key replays. */
  async settle(ex: Executor, workspaceId: string, key: string, status: number, body: string): Promise<void> {
    await ex
      .updateTable('idempotency_keys')
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .set({ state: 'done', response_status: status, response_body: body })
      .execute();
  },

  async delete(ex: Executor, workspaceId: string, key: string): Promise<void> {
    await ex
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .execute();
  },
};
