// The one HMAC signer for outgoing webhooks (section 6.3): platform event deliveries and the
// workflow Webhook node's `hmac` auth both sign through here, so the two can never drift apart.
import { createHmac } from 'node:crypto';

/**
 * Lowercase hex HMAC-SHA256 of `timestamp + "." + rawBody`, keyed by the whole secret string
 * (the `whsec_` prefix included) as UTF-8 bytes. `timestamp` is Unix seconds.
 */
export function signPayload(secret: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  if (typeof body === 'string') {
    mac.update(`${timestamp}.${body}`, 'utf8');
  } else {
    mac.update(`${timestamp}.`, 'utf8');
    mac.update(body);
  }
  return mac.digest('hex');
}
