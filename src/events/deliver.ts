// Sends one webhook attempt (sections 6.2 to 6.4): POST with exactly the six documented headers,
// the event's stored body bytes, a fresh X-Service-Delivery id and a signature over this attempt's
// timestamp. Success is a 2xx status within 10 s; redirects are never followed (undici does not
// follow them without a redirect interceptor, and we install none). The deadline runs on the
// injected clock so the 10 s timeout is tested without waiting.
import type { Dispatcher } from 'undici';
import type { Clock } from '../shared/clock.js';
import { signPayload } from './signer.js';

export const USER_AGENT = 'Service-Webhooks/1.0';
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Response bodies and headers are kept up to this many bytes in the delivery log. */
export const CAPTURE_LIMIT_BYTES = 16 * 1024;

export interface AttemptRequest {
  url: string;
  eventType: string;
  /** The event body exactly as stored at event creation; the same bytes on every attempt. */
  body: string;
  secret: string;
  /** X-Service-Delivery: a new UUID for every attempt. */
  attemptId: string;
}

export interface AttemptOutcome {
  attemptId: string;
  ok: boolean;
  requestHeaders: Record<string, string>;
  status: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  startedAt: number;
}

export interface SenderDeps {
  dispatcher: Dispatcher;
  clock: Clock;
  timeoutMs?: number;
}

export function attemptHeaders(req: AttemptRequest, timestampSeconds: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Event': req.eventType,
    'X-Service-Delivery': req.attemptId,
    'X-Service-Timestamp': String(timestampSeconds),
    'X-Service-Signature': signPayload(req.secret, timestampSeconds, req.body),
  };
}

/** Where a URL's requests go, parsed once per endpoint URL rather than once per attempt. */
const targets = new Map<string, { origin: string; path: string }>();
function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= 10_000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/**
 * Sends one attempt and settles with its outcome; never rejects. Uses undici's dispatcher API
 * directly (no response stream, no abort signal plumbing): this runs once per delivery.
 */
export function sendAttempt(req: AttemptRequest, deps: SenderDeps): Promise<AttemptOutcome> {
  const { clock } = deps;
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const startedAt = clock.now();
  const started = clock.monotonic();
  const requestHeaders = attemptHeaders(req, Math.floor(startedAt / 1000));
  return new Promise<AttemptOutcome>((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let settled = false;
    let status: number | null = null;
    let responseHeaders: Record<string, string> | null = null;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      const ok = status !== null && status >= 200 && status < 300;
      let error = failure;
      if (status !== null && !ok) {
        const location = responseHeaders?.['location'];
        error =
          status >= 300 && status < 400
            ? `redirect (${status}${location ? ` to ${location}` : ''}) not followed`
            : `endpoint answered ${status}`;
      }
      resolve({
        attemptId: req.attemptId,
        requestHeaders,
        startedAt,
        ok,
        status,
        responseHeaders,
        // Whatever of the body arrived, even when it was cut short.
        responseBody: status === null ? null : logText(Buffer.concat(chunks).toString('utf8')),
        error,
        durationMs: clock.monotonic() - started,
      });
    };
    const bodyFailure = (why: string) => (status === null ? why : `response body not read in full: ${why}`);

    const timer = clock.setTimeout(() => {
      finish(bodyFailure(`timeout: no complete response within ${timeoutMs / 1000} s`));
      controller?.abort(new Error(`no response within ${timeoutMs / 1000} s`));
    }, timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // The deadline passed before the request even started: do not send it late.
        if (settled) c.abort(new Error(`no response within ${timeoutMs / 1000} s`));
      },
      onResponseStart(_c, statusCode, headers) {
        if (statusCode < 200) return; // informational (1xx): the real answer follows
        status = statusCode;
        responseHeaders = captureHeaders(headers);
      },
      onResponseData(c, chunk) {
        if (size < CAPTURE_LIMIT_BYTES) chunks.push(chunk.subarray(0, CAPTURE_LIMIT_BYTES - size));
        size += chunk.length;
        if (size >= CAPTURE_LIMIT_BYTES && !settled) {
          // Past the cap the rest is of no use to the log; closing the socket beats reading megabytes.
          finish(null);
          c.abort(new Error('response body past the capture limit'));
        }
      },
      onResponseEnd() {
        finish(null);
      },
      onResponseError(_c, err) {
        finish(bodyFailure(describeError(err, false, timeoutMs)));
      },
    };
    try {
      const { origin, path } = targetOf(req.url);
      deps.dispatcher.dispatch(
        { origin, path, method: 'POST', headers: requestHeaders, body: req.body },
        handler,
      );
    } catch (e) {
      finish(describeError(e, false, timeoutMs));
    }
  });
}

/** PostgreSQL text cannot hold NUL; a receiver's answer might. */
function logText(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

function captureHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = logText(Array.isArray(value) ? value.join(', ') : String(value));
    size += name.length + text.length + 4;
    if (size > CAPTURE_LIMIT_BYTES) break;
    out[name] = text;
  }
  return out;
}

/** One readable line for the delivery log, whatever undici or the guard threw. */
export function describeError(e: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete response within ${timeoutMs / 1000} s`;
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if (cur.name === 'SsrfRefusedError') return cur.message;
  }
  const err = e as (Error & { code?: string; cause?: Error & { code?: string } }) | undefined;
  const code = err?.code ?? err?.cause?.code;
  const message = err?.cause?.message || err?.message || String(e);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
