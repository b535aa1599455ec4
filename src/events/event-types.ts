// The platform's event types (section 6.1). Endpoints subscribe to a subset of these.

export const EVENT_TYPES = [
  'call.started',
  'call.ended',
  'session.ended',
  'workflow.completed',
  'workflow.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** Delivery states of the delivery log (docs/webhooks.md). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Error recorded on deliveries that were not attempted because their endpoint is paused. */
export const ENDPOINT_PAUSED_ERROR = 'endpoint paused: not sent; redeliver after resuming the endpoint';
