// Sends one webhook attempt (sections 6.2 to 6.4): POST with exactly the six documented headers,
// the event's stored body bytes, a fresh X-Service-Delivery id and a signature over this attempt's
// timestamp. Success is a 2xx status within 10 s; redirects are never followed (undici does not
// follow them without a redirect interceptor, and we install none). The deadline runs on the
// injected clock so the 10 s timeout is tested without waiting.
import { request, type Dispatcher } from 'undici';
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

export async function sendAttempt(req: AttemptRequest, deps: SenderDeps): Promise<AttemptOutcome> {
  const { clock } = deps;
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const startedAt = clock.now();
  const started = clock.monotonic();
  const requestHeaders = attemptHeaders(req, Math.floor(startedAt / 1000));
  const controller = new AbortController();
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no response within ${timeoutMs / 1000} s`));
  }, timeoutMs);
  const base = { attemptId: req.attemptId, requestHeaders, startedAt };
  let status: number | null = null;
  let responseHeaders: Record<string, string> | null = null;
  try {
    const res = await request(req.url, {
      method: 'POST',
      headers: requestHeaders,
      body: req.body,
      dispatcher: deps.dispatcher,
      signal: controller.signal,
    });
    status = res.statusCode;
    responseHeaders = captureHeaders(res.headers);
    let responseBody: string | null = null;
    let bodyError: string | null = null;
    try {
      responseBody = await readCapped(res.body, responseHeaders['content-length']);
    } catch (e) {
      bodyError = `response body not read in full: ${describeError(e, timedOut, timeoutMs)}`;
    }
    const ok = status >= 200 && status < 300;
    let error = bodyError;
    if (!ok) {
      const location = responseHeaders['location'];
      error =
        status >= 300 && status < 400
          ? `redirect (${status}${location ? ` to ${location}` : ''}) not followed`
          : `endpoint answered ${status}`;
    }
    return {
      ...base,
      ok,
      status,
      responseHeaders,
      responseBody,
      error,
      durationMs: clock.monotonic() - started,
    };
  } catch (e) {
    return {
      ...base,
      ok: false,
      status,
      responseHeaders,
      responseBody: null,
      error: describeError(e, timedOut, timeoutMs),
      durationMs: clock.monotonic() - started,
    };
  } finally {
    clock.clearTimeout(timer);
  }
}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  contentLength: string | undefined,
): Promise<string> {
  // The usual small answer with a known length is read in one go; anything else is streamed
  // and cut at the cap.
  if (contentLength !== undefined && Number(contentLength) <= CAPTURE_LIMIT_BYTES) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < CAPTURE_LIMIT_BYTES) chunks.push(chunk.subarray(0, CAPTURE_LIMIT_BYTES - size));
    size += chunk.length;
    if (size >= CAPTURE_LIMIT_BYTES) {
      // Past the cap the rest is of no use to the log; closing the socket beats reading megabytes.
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function captureHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
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
