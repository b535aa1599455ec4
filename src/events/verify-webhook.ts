// Receiver helper, published as `switchboard/webhooks`: checks a delivery's X-Service-Signature
// and X-Service-Timestamp the way section 6.3 asks (raw bytes, constant time, tolerance both ways).
// It depends on nothing but node:crypto and the one signer, so receivers can import it alone.
import { timingSafeEqual } from 'node:crypto';
import { signPayload } from './signer.js';

export type WebhookVerificationReason =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'invalid_body';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Node's IncomingHttpHeaders (lower-case keys), a plain record, or a fetch `Headers`. */
export type WebhookHeaders =
  { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Maximum distance between X-Service-Timestamp and now, either direction. Default 300. */
  toleranceSeconds?: number;
  /** Current time in milliseconds since the epoch (Date.now() when omitted). */
  now?: number;
}

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  project_id: string;
  data: T;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name.toLowerCase()];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery and returns the parsed event. Pass the body exactly as received (a Buffer or
 * the undecoded string), before any JSON parsing. Throws WebhookVerificationError with a `reason`.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Buffer | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent<T> {
  const tolerance = options.toleranceSeconds ?? 300;
  const signature = header(headers, 'x-service-signature')?.trim();
  const timestampText = header(headers, 'x-service-timestamp')?.trim();
  if (!signature) throw new WebhookVerificationError('missing_signature', 'X-Service-Signature is missing.');
  if (!timestampText) {
    throw new WebhookVerificationError('missing_timestamp', 'X-Service-Timestamp is missing.');
  }
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      'X-Service-Timestamp must be Unix seconds (digits only).',
    );
  }
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (nowSeconds - timestamp > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `X-Service-Timestamp is ${nowSeconds - timestamp} s old; the tolerance is ${tolerance} s.`,
    );
  }
  if (timestamp - nowSeconds > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `X-Service-Timestamp is ${timestamp - nowSeconds} s in the future; the tolerance is ${tolerance} s.`,
    );
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = Buffer.from(signPayload(secret, timestamp, body), 'utf8');
  const given = Buffer.from(signature.toLowerCase(), 'utf8');
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of
  // where a wrong-length signature would have differed.
  const sameLength = given.length === expected.length;
  const equal = timingSafeEqual(sameLength ? given : expected, expected) && sameLength;
  if (!equal) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'X-Service-Signature does not match the body, timestamp and secret.',
    );
  }
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is signed but is not JSON.');
  }
}
