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
  const endpoints = await outboxRepo.projectEndpoints(trx, input.workspaceId, input.projectId);
  const subscribed = endpoints.filter((e) => parseJson<string[]>(e.events, []).includes(input.type));
  if (subscribed.length > 0) {
    await outboxRepo.insertDeliveries(
      trx,
      subscribed.map((e) => {
        const active = e.status === 'active';
        return {
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
        };
      }),
    );
  }
  const pending = subscribed.filter((e) => e.status === 'active').length;
  return { id, body, pending, paused: subscribed.length - pending };
}
