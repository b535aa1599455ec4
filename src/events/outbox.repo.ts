// SQL for the outbox (outbox.ts): the event row, the endpoints of its project that may subscribe
// to it, and the delivery rows of its fan-out, all written on the caller's transaction.
import type { Executor } from '../store/database.js';
import type { WebhookDeliveryTable, WebhookEventTable } from '../store/webhook-tables.js';

export const outboxRepo = {
  async insertEvent(trx: Executor, row: WebhookEventTable): Promise<void> {
    await trx.insertInto('webhook_events').values(row).execute();
  },

  /** Every endpoint of the project, with its status and its subscribed types (JSON text). */
  projectEndpoints(trx: Executor, workspaceId: string, projectId: string) {
    return trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'status', 'events'])
      .where('workspace_id', '=', workspaceId)
      .where('project_id', '=', projectId)
      .execute();
  },

  /** One statement for the whole fan-out; `rows` must not be empty. */
  async insertDeliveries(trx: Executor, rows: WebhookDeliveryTable[]): Promise<void> {
    await trx.insertInto('webhook_deliveries').values(rows).execute();
  },
};
