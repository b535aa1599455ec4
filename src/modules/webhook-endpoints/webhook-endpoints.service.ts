// Rules for webhook endpoints: the signing secret is generated here and shown once (on create and
// on rotate); URLs must be https unless inside WEBHOOK_ALLOWED_CIDRS; pausing stops waiting
// deliveries (they become `failed`, redeliverable), resuming clears the failing streak; dead or
// failed deliveries can be sent again with the same event id.
import { randomBytes } from 'node:crypto';
import { pageParams, type PageParams } from '../../shared/paging.js';
import { AddressPolicy } from '../../events/address-policy.js';
import { deliveriesRepo } from '../../events/deliveries.repo.js';
import { systemResolver, type Resolver } from '../../events/ssrf-guard.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime } from '../../store/database.js';
import type { WebhookAttemptTable, WebhookEndpointTable } from '../../store/webhook-tables.js';
import type { Actor, ServiceDeps } from '../context.js';
import { projectsRepo } from '../projects/projects.repo.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { webhookEndpointsRepo as repo } from './webhook-endpoints.repo.js';
import type {
  CreateWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhook-endpoints.schema.js';

/** `whsec_` + 32 random bytes, base64url (43 characters). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function toWebhookEndpoint(row: WebhookEndpointTable): WebhookEndpoint {
  return {
    id: row.id,
    project_id: row.project_id,
    url: row.url,
    description: row.description,
    events: parseJson<string[]>(row.events, []),
    status: row.status === 'paused' ? 'paused' : 'active',
    paused_reason: row.paused_reason === 'auto' ? 'auto' : row.paused_reason === 'manual' ? 'manual' : null,
    paused_at: apiTime(row.paused_at),
    failing_since: apiTime(row.failing_since),
    last_success_at: apiTime(row.last_success_at),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

function toAttempt(a: WebhookAttemptTable, body: string): WebhookAttempt {
  return {
    id: a.id,
    attempt_number: Number(a.attempt_number),
    started_at: apiTime(a.started_at),
    duration_ms: Number(a.duration_ms),
    request: { headers: parseJson(a.request_headers, {}), body },
    response:
      a.response_status === null
        ? null
        : {
            status: Number(a.response_status),
            headers: parseJson(a.response_headers, {}),
            body: a.response_body,
          },
    error: a.error,
  };
}

type DeliveryRow = NonNullable<Awaited<ReturnType<typeof repo.findDelivery>>>;

function toDelivery(
  d: Omit<DeliveryRow, 'endpoint_status'>,
  attempts: WebhookAttemptTable[],
): WebhookDelivery {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event: { id: d.event_id, type: d.event_type, created_at: apiTime(d.event_created_at) },
    status: d.status as WebhookDelivery['status'],
    attempt_count: Number(d.attempt_count),
    next_attempt_at: d.status === 'pending' ? apiTime(d.next_attempt_at) : null,
    last_status_code: d.last_status_code === null ? null : Number(d.last_status_code),
    last_error: d.last_error,
    created_at: apiTime(d.created_at),
    updated_at: apiTime(d.updated_at),
    attempts: attempts.map((a) => toAttempt(a, d.event_body)),
  };
}

export class WebhookEndpointsService {
  private readonly policy: AddressPolicy;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.policy = new AddressPolicy(deps.config.webhookAllowedCidrs);
  }

  async list(actor: Actor, filter: { project_id?: string }, page: PageParams = pageParams({})) {
    const { rows, total } = await repo.list(this.deps.db, actor.workspaceId, filter, page);
    return { items: rows.map(toWebhookEndpoint), total };
  }

  async get(actor: Actor, id: string): Promise<WebhookEndpoint> {
    return toWebhookEndpoint(await this.require(actor, id));
  }

  private async require(actor: Actor, id: string): Promise<WebhookEndpointTable> {
    const row = await repo.find(this.deps.db, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Webhook endpoint');
    return row;
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await checkEndpointUrl(url, this.policy, this.resolver);
    if (problem) throw ValidationError.field('url', problem);
  }

  async create(actor: Actor, input: CreateWebhookEndpoint): Promise<WebhookEndpointWithSecret> {
    await this.checkUrl(input.url);
    const secret = newSigningSecret();
    return inTransaction(this.deps.db, async (trx) => {
      if (!(await projectsRepo.find(trx, actor.workspaceId, input.project_id))) {
        throw ValidationError.field('project_id', 'does not name a project of this workspace');
      }
      const now = toDbTime(this.deps.clock.now());
      const row: WebhookEndpointTable = {
        id: this.deps.newId(),
        workspace_id: actor.workspaceId,
        project_id: input.project_id,
        url: input.url,
        description: input.description ?? null,
        events: JSON.stringify(input.events),
        status: 'active',
        secret_enc: this.deps.secretBox.seal(secret),
        failing_since: null,
        last_success_at: null,
        paused_reason: null,
        paused_at: null,
        created_at: now,
        updated_at: now,
      };
      await repo.insert(trx, row);
      return { ...toWebhookEndpoint(row), secret };
    });
  }

  async update(actor: Actor, id: string, input: UpdateWebhookEndpoint): Promise<WebhookEndpoint> {
    if (input.url !== undefined) await this.checkUrl(input.url);
    return inTransaction(this.deps.db, async (trx) => {
      const row = await repo.find(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Webhook endpoint');
      const nowMs = this.deps.clock.now();
      const now = toDbTime(nowMs);
      const next: WebhookEndpointTable = {
        ...row,
        url: input.url ?? row.url,
        events: input.events ? JSON.stringify(input.events) : row.events,
        description: input.description !== undefined ? input.description : row.description,
        updated_at: now,
      };
      if (input.status === 'paused' && row.status !== 'paused') {
        Object.assign(next, { status: 'paused', paused_reason: 'manual', paused_at: now });
        await deliveriesRepo.failPending(trx, id, nowMs);
      } else if (input.status === 'active' && row.status !== 'active') {
        // A resumed endpoint starts a fresh streak; otherwise its next failure would re-pause it.
        Object.assign(next, { status: 'active', paused_reason: null, paused_at: null, failing_since: null });
      }
      await repo.update(trx, next);
      return toWebhookEndpoint(next);
    });
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      if (!(await repo.find(trx, actor.workspaceId, id))) throw new NotFoundError('Webhook endpoint');
      await repo.delete(trx, actor.workspaceId, id);
    });
  }

  /** A new secret, shown once; deliveries sign with it from their next attempt on. */
  async rotateSecret(actor: Actor, id: string): Promise<WebhookEndpointWithSecret> {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await repo.find(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Webhook endpoint');
      const secret = newSigningSecret();
      const next = {
        ...row,
        secret_enc: this.deps.secretBox.seal(secret),
        updated_at: toDbTime(this.deps.clock.now()),
      };
      await repo.update(trx, next);
      return { ...toWebhookEndpoint(next), secret };
    });
  }

  async listDeliveries(actor: Actor, endpointId: string, filter: { status?: string }, page: PageParams) {
    await this.require(actor, endpointId);
    const { rows, total } = await repo.listDeliveries(
      this.deps.db,
      actor.workspaceId,
      endpointId,
      filter,
      page,
    );
    const attempts = await repo.attemptsOf(
      this.deps.db,
      rows.map((r) => r.id),
    );
    const byDelivery = new Map<string, WebhookAttemptTable[]>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    return { items: rows.map((r) => toDelivery(r, byDelivery.get(r.id) ?? [])), total };
  }

  /**
   * Sends a `dead` or `failed` delivery again: same event id, same body bytes, a fresh round of up
   * to eight attempts on the usual schedule. 409 while it is still pending or already succeeded,
   * and while its endpoint is paused (resume it first, or the delivery would just fail again).
   */
  async redeliver(actor: Actor, deliveryId: string): Promise<WebhookDelivery> {
    return inTransaction(this.deps.db, async (trx) => {
      const d = await repo.findDelivery(trx, actor.workspaceId, deliveryId);
      if (!d) throw new NotFoundError('Webhook delivery');
      if (d.status !== 'dead' && d.status !== 'failed') {
        throw new ConflictError(
          `Only dead or failed deliveries can be redelivered; this one is ${d.status}.`,
          {
            status: [`is ${d.status}`],
          },
        );
      }
      if (d.endpoint_status !== 'active') {
        throw new ConflictError('The endpoint is paused; resume it before redelivering.', {
          endpoint: ['is paused'],
        });
      }
      const now = toDbTime(this.deps.clock.now());
      await repo.restartDelivery(trx, d.id, ['dead', 'failed'], now);
      const after = await repo.findDelivery(trx, actor.workspaceId, deliveryId);
      const attempts = await repo.attemptsOf(trx, [deliveryId]);
      return toDelivery(after!, attempts);
    });
  }
}
