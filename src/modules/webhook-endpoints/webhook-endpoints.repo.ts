// SQL for webhook endpoints and their delivery log, always scoped by workspace.
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import type { WebhookEndpointTable } from '../../store/webhook-tables.js';

export const webhookEndpointsRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<WebhookEndpointTable | undefined> {
    return ex
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  list(ex: Executor, workspaceId: string, filter: { project_id?: string }, page: PageParams) {
    let base = ex.selectFrom('webhook_endpoints').where('workspace_id', '=', workspaceId);
    if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  async insert(ex: Executor, row: WebhookEndpointTable): Promise<void> {
    await ex.insertInto('webhook_endpoints').values(row).execute();
  },

  async update(ex: Executor, row: WebhookEndpointTable): Promise<void> {
    const { id, workspace_id, ...rest } = row;
    await ex
      .updateTable('webhook_endpoints')
      .set(rest)
      .where('workspace_id', '=', workspace_id)
      .where('id', '=', id)
      .execute();
  },

  /** The endpoint with its delivery log (a deleted endpoint's log has nowhere to be shown). */
  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    const deliveries = ex
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('endpoint_id', '=', id);
    await ex.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await ex
      .deleteFrom('webhook_deliveries')
      .where('workspace_id', '=', workspaceId)
      .where('endpoint_id', '=', id)
      .execute();
    await ex
      .deleteFrom('webhook_endpoints')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .execute();
  },

  listDeliveries(
    ex: Executor,
    workspaceId: string,
    endpointId: string,
    filter: { status?: string },
    page: PageParams,
  ) {
    let base = ex
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .where('d.workspace_id', '=', workspaceId)
      .where('d.endpoint_id', '=', endpointId);
    if (filter.status) base = base.where('d.status', '=', filter.status);
    return paginate(
      base,
      page,
      (qb) => qb.selectAll('d').select(['e.body as event_body', 'e.created_at as event_created_at']),
      { created: 'd.created_at', id: 'd.id' },
    );
  },

  attemptsOf(ex: Executor, deliveryIds: string[]) {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return ex
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('delivery_id')
      .orderBy('attempt_number')
      .execute();
  },

  findDelivery(ex: Executor, workspaceId: string, id: string) {
    return ex
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_endpoints as ep', 'ep.id', 'd.endpoint_id')
      .selectAll('d')
      .select(['e.body as event_body', 'e.created_at as event_created_at', 'ep.status as endpoint_status'])
      .where('d.workspace_id', '=', workspaceId)
      .where('d.id', '=', id)
      .executeTakeFirst();
  },

  /** Starts a new round of attempts for the same event: due now, the attempt count kept. */
  async restartDelivery(ex: Executor, id: string, fromStatuses: string[], now: string): Promise<boolean> {
    const r = await ex
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'pending',
        round_start: eb.ref('attempt_count'),
        next_attempt_at: now,
        lease_owner: null,
        last_error: null,
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('status', 'in', fromStatuses)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
};
