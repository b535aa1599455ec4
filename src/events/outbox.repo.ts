// SQL for the outbox (outbox.ts): the event row, the endpoints of its project that may subscribe
// to it, and the delivery rows of its fan-out, all written on the caller's transaction.
import type { Executor } from '../store/database.js';
import { preparedQuery, queryExecute, queryRows } from '../store/prepared.js';
import type {
  WebhookDeliveryTable,
  WebhookEndpointTable,
  WebhookEventTable,
} from '../store/webhook-tables.js';

// Every event of every call looks its project's endpoints up (three per call): kept prepared.
const PROJECT_ENDPOINTS = preparedQuery<Pick<WebhookEndpointTable, 'id' | 'status' | 'events'>>(
  'project_endpoints',
  'select id, status, events from webhook_endpoints where workspace_id = $1 and project_id = $2',
);

// Every call writes three events or more: the insert is kept prepared too.
const INSERT_EVENT = preparedQuery<never>(
  'webhook_event_insert',
  'insert into webhook_events (id, workspace_id, project_id, type, body, created_at) values ($1, $2, $3, $4, $5, $6)',
);

export const outboxRepo = {
  async insertEvent(trx: Executor, row: WebhookEventTable): Promise<void> {
    const { id, workspace_id, project_id, type, body, created_at } = row;
    await queryExecute(trx, INSERT_EVENT, [id, workspace_id, project_id, type, body, created_at]);
  },

  /** Every endpoint of the project, with its status and its subscribed types (JSON text). */
  projectEndpoints(
    trx: Executor,
    workspaceId: string,
    projectId: string,
  ): Promise<Pick<WebhookEndpointTable, 'id' | 'status' | 'events'>[]> {
    return Promise.resolve(queryRows(trx, PROJECT_ENDPOINTS, [workspaceId, projectId]));
  },

  /** One statement for the whole fan-out; `rows` must not be empty. */
  async insertDeliveries(trx: Executor, rows: WebhookDeliveryTable[]): Promise<void> {
    await trx.insertInto('webhook_deliveries').values(rows).execute();
  },
};
