import { describe, expect, it } from 'vitest';
import { signPayload } from './signer.js';
import { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';

// The published test vector (docs/webhooks.md): any receiver implementation must reproduce it.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLc4s',
  timestamp: 1767225600,
  body:
    '{"id":"01943a5c-8e00-7000-8000-000000000001","type":"session.ended","created_at":"2026-01-01T00:00:00Z",' +
    '"project_id":"01943a5c-8e00-7000-8000-0000000000aa","data":{"id":"01943a5c-8e00-7000-8000-0000000000bb",' +
    '"status":"ended","duration_seconds":42,"end_reason":"api_request"}}',
  signature: 'cd2dd4f30e4ed8551dd6b25701e626f46ded0656d707c5e3e58237ff3f0009aa',
};

const nowMs = VECTOR.timestamp * 1000;
const headers = (over: Record<string, string> = {}) => ({
  'x-service-timestamp': String(VECTOR.timestamp),
  'x-service-signature': VECTOR.signature,
  ...over,
});

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
  return 'accepted';
}

describe('signPayload', () => {
  it('reproduces the published test vector', () => {
    expect(signPayload(VECTOR.secret, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signPayload(VECTOR.secret, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(VECTOR.signature);
  });

  it('keys by the whole secret, prefix included', () => {
    const withoutPrefix = signPayload(VECTOR.secret.slice('whsec_'.length), VECTOR.timestamp, VECTOR.body);
    expect(withoutPrefix).not.toBe(VECTOR.signature);
    expect(VECTOR.signature).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('verifyWebhook', () => {
  it('accepts the test vector and returns the event', () => {
    const event = verifyWebhook(VECTOR.body, headers(), VECTOR.secret, { now: nowMs });
    expect(event.type).toBe('session.ended');
    expect(event.id).toBe('01943a5c-8e00-7000-8000-000000000001');
  });

  it('accepts raw Buffers, fetch Headers and mixed-case header names', () => {
    const h = new Headers({
      'X-Service-Timestamp': String(VECTOR.timestamp),
      'X-Service-Signature': VECTOR.signature,
    });
    expect(verifyWebhook(Buffer.from(VECTOR.body), h, VECTOR.secret, { now: nowMs }).type).toBe(
      'session.ended',
    );
    const mixed = {
      'X-Service-Timestamp': String(VECTOR.timestamp),
      'X-Service-Signature': VECTOR.signature,
    };
    expect(reasonOf(() => verifyWebhook(VECTOR.body, mixed, VECTOR.secret, { now: nowMs }))).toBe('accepted');
  });

  it('accepts timestamps up to the tolerance in both directions', () => {
    for (const skew of [-300, 300]) {
      expect(
        reasonOf(() => verifyWebhook(VECTOR.body, headers(), VECTOR.secret, { now: nowMs + skew * 1000 })),
      ).toBe('accepted');
    }
  });

  it('rejects an old timestamp', () => {
    expect(
      reasonOf(() => verifyWebhook(VECTOR.body, headers(), VECTOR.secret, { now: nowMs + 301_000 })),
    ).toBe('timestamp_too_old');
  });

  it('rejects a timestamp in the future', () => {
    expect(
      reasonOf(() => verifyWebhook(VECTOR.body, headers(), VECTOR.secret, { now: nowMs - 301_000 })),
    ).toBe('timestamp_in_future');
  });

  it('honours a custom tolerance', () => {
    const opts = { now: nowMs + 61_000, toleranceSeconds: 60 };
    expect(reasonOf(() => verifyWebhook(VECTOR.body, headers(), VECTOR.secret, opts))).toBe(
      'timestamp_too_old',
    );
  });

  it('rejects the wrong secret', () => {
    expect(reasonOf(() => verifyWebhook(VECTOR.body, headers(), 'whsec_other', { now: nowMs }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects an altered body', () => {
    const altered = VECTOR.body.replace('"duration_seconds":42', '"duration_seconds":43');
    expect(reasonOf(() => verifyWebhook(altered, headers(), VECTOR.secret, { now: nowMs }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects a signature of another timestamp (replay with a fresh timestamp)', () => {
    const h = headers({ 'x-service-timestamp': String(VECTOR.timestamp + 1) });
    expect(reasonOf(() => verifyWebhook(VECTOR.body, h, VECTOR.secret, { now: nowMs }))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects truncated, missing and malformed headers', () => {
    const v = (h: Record<string, string>) =>
      reasonOf(() => verifyWebhook(VECTOR.body, h, VECTOR.secret, { now: nowMs }));
    expect(v(headers({ 'x-service-signature': VECTOR.signature.slice(0, 63) }))).toBe('signature_mismatch');
    expect(v({ 'x-service-timestamp': String(VECTOR.timestamp) })).toBe('missing_signature');
    expect(v({ 'x-service-signature': VECTOR.signature })).toBe('missing_timestamp');
    expect(v(headers({ 'x-service-timestamp': '1767225600.5' }))).toBe('invalid_timestamp');
  });
});
