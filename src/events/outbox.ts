// The transactional outbox: the code that changes state (a session ending, a call connecting)
// calls emitEvent with its own transaction, so the event exists if and only if the change does.
// The webhook worker later delivers what is written here; nothing is kept in memory.
//
// Fan-out happens here, at write time: one delivery row per endpoint of the event's project that
// subscribes to its type. Active endpoints get a `pending` delivery due now. Paused endpoints get a
// `failed` delivery with the error "endpoint paused" and no attempt, so the event is never silently
// lost: it shows in that endpoint's delivery log and can be redelivered once the endpoint resumes.
import { isoSeconds } from '../shared/clock.js';
import { newId as defaultNewId, type IdGenerator } from '../shared/ids.js';
import { parseJson, toDbTime, type Executor } from '../store/database.js';
import { ENDPOINT_PAUSED_ERROR, isEventType, type EventType } from './event-types.js';
import { outboxRepo } from './outbox.repo.js';
import type { WebhookDeliveryTable } from '../store/webhook-tables.js';

export interface EmitEventInput {
  workspaceId: string;
  projectId: string;
  type: EventType;
  /** The `data` object of section 6.1 for this type. */
  data: Record<string, unknown>;
  /** Milliseconds since the epoch: the event's created_at. */
  now: number;
  /** Defaults to a new UUIDv7. */
  id?: string;
}

export interface EmittedEvent {
  id: string;
  /** The exact body every delivery of this event sends. */
  body: string;
  /** Deliveries created: pending for active endpoints, failed for paused ones. */
  pending: number;
  paused: number;
}

/** The body of section 6.2, serialized once; every attempt and redelivery sends these bytes. */
export function serializeEvent(
  id: string,
  type: EventType,
  createdAt: number,
  projectId: string,
  data: unknown,
) {
  return JSON.stringify({ id, type, created_at: isoSeconds(createdAt), project_id: projectId, data });
}

export async function emitEvent(
  trx: Executor,
  input: EmitEventInput,
  newId: IdGenerator = defaultNewId,
): Promise<EmittedEvent> {
  return (await emitEvents(trx, [input], newId))[0]!;
}

type Endpoints = Awaited<ReturnType<typeof outboxRepo.projectEndpoints>>;

/**
 * Several events written by one change (a call ending, and its session with it), in order, in the
 * caller's transaction: each event row, and every delivery of them all in one statement; the
 * endpoints of a project are read once for all its events.
 */
export async function emitEvents(
  trx: Executor,
  inputs: readonly EmitEventInput[],
  newId: IdGenerator = defaultNewId,
): Promise<EmittedEvent[]> {
  const out: EmittedEvent[] = [];
  const deliveries: WebhookDeliveryTable[] = [];
  let endpointsOf: { key: string; endpoints: Endpoints } | undefined;
  for (const input of inputs) {
    if (!isEventType(input.type)) throw new Error(`unknown event type ${String(input.type)}`);
    const id = input.id ?? newId();
    const at = toDbTime(input.now);
    const body = serializeEvent(id, input.type, input.now, input.projectId, input.data);
    await outboxRepo.insertEvent(trx, {
      id,
      workspace_id: input.workspaceId,
      project_id: input.projectId,
      type: input.type,
      body,
      created_at: at,
    });
    // The events of one change are of one project: the last project's endpoints are kept.
    const key = `${input.workspaceId}/${input.projectId}`;
    if (endpointsOf?.key !== key) {
      endpointsOf = {
        key,
        endpoints: await outboxRepo.projectEndpoints(trx, input.workspaceId, input.projectId),
      };
    }
    let pending = 0;
    let paused = 0;
    for (const e of endpointsOf.endpoints) {
      if (!parseJson<string[]>(e.events, []).includes(input.type)) continue;
      const active = e.status === 'active';
      if (active) pending++;
      else paused++;
      deliveries.push({
        id: newId(),
        workspace_id: input.workspaceId,
        endpoint_id: e.id,
        event_id: id,
        event_type: input.type,
        status: active ? 'pending' : 'failed',
        attempt_count: 0,
        round_start: 0,
        next_attempt_at: active ? at : null,
        lease_owner: null,
        last_status_code: null,
        last_error: active ? null : ENDPOINT_PAUSED_ERROR,
        created_at: at,
        updated_at: at,
      });
    }
    out.push({ id, body, pending, paused });
  }
  if (deliveries.length > 0) await outboxRepo.insertDeliveries(trx, deliveries);
  return out;
}
