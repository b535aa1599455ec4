// Row types of the webhook tables (migration 002-webhooks): endpoints, the event outbox, one
// delivery per (event, endpoint) and one row per attempt. The delivery table is also the job
// queue: the worker claims rows whose next_attempt_at is due.

export interface WebhookEndpointTable {
  id: string;
  workspace_id: string;
  project_id: string;
  url: string;
  description: string | null;
  /** JSON array of subscribed event types. */
  events: string;
  /** `active` or `paused`. */
  status: string;
  /** The signing secret sealed with the server's SecretBox; the server must sign with it. */
  secret_enc: string;
  /** First failed attempt since the last success; null while the endpoint is healthy. */
  failing_since: string | null;
  last_success_at: string | null;
  /** Why the endpoint is paused: `manual` or `auto` (7 days of failures). */
  paused_reason: string | null;
  paused_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventTable {
  id: string;
  workspace_id: string;
  project_id: string;
  type: string;
  /** The delivery body, serialized once at creation; every attempt sends these exact bytes. */
  body: string;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** `pending`, `succeeded`, `failed` (stopped before its attempts ran out) or `dead`. */
  status: string;
  /** Attempts ever made, across manual redeliveries. */
  attempt_count: number;
  /** attempt_count when the current round began (0, or the count at a manual redeliver). */
  round_start: number;
  /** When a pending delivery is due; while claimed it holds the lease expiry instead. */
  next_attempt_at: string | null;
  /** Worker holding the lease; null when nobody does. */
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptTable {
  /** Also the attempt's X-Service-Delivery header. */
  id: string;
  delivery_id: string;
  attempt_number: number;
  /** JSON object: the request headers exactly as sent. The body is the event's stored body. */
  request_headers: string;
  response_status: number | null;
  /** JSON object, capped at 16 KiB. */
  response_headers: string | null;
  /** Capped at 16 KiB. */
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  started_at: string;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
}
