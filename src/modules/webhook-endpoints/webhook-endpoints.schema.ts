// Request and response schemas of /webhook-endpoints and /webhook-deliveries (docs/webhooks.md).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';
import { EVENT_TYPES, DELIVERY_STATUSES } from '../../events/event-types.js';

const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'One of the event types of section 6.1' },
);
const Events = Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL; http only for hosts inside WEBHOOK_ALLOWED_CIDRS',
});

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    project_id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
    paused_reason: Nullable(Type.Union([Type.Literal('manual'), Type.Literal('auto')])),
    paused_at: Nullable(Timestamp),
    failing_since: Nullable(Timestamp),
    last_success_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Intersect([
  WebhookEndpoint,
  Type.Object({ secret: Type.String({ description: 'whsec_…; shown only here' }) }),
]);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const CreateWebhookEndpoint = Type.Object(
  {
    project_id: Type.String(),
    url: Url,
    events: Events,
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpoint = Static<typeof CreateWebhookEndpoint>;

export const UpdateWebhookEndpoint = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpoint = Static<typeof UpdateWebhookEndpoint>;

export const WebhookAttempt = Type.Object({
  id: Type.String({ description: 'The X-Service-Delivery header of this attempt' }),
  attempt_number: Type.Integer(),
  started_at: Timestamp,
  duration_ms: Type.Integer(),
  request: Type.Object({
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.String({ description: 'The event body; identical bytes on every attempt' }),
  }),
  response: Nullable(
    Type.Object({
      status: Type.Integer(),
      headers: Type.Record(Type.String(), Type.String()),
      body: Nullable(Type.String({ description: 'Capped at 16 KiB' })),
    }),
  ),
  error: Nullable(Type.String()),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    endpoint_id: Type.String({ format: 'uuid' }),
    event: Type.Object({ id: Type.String(), type: Type.String(), created_at: Timestamp }),
    status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(Timestamp),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    attempts: Type.Array(WebhookAttempt, { description: 'Oldest first' }),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryQuery = {
  status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
};
