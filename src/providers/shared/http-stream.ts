// One streaming HTTP attempt for a provider adapter: POST with undici, enforce the first-byte,
// idle and total timeouts on the injected clock, and yield the body's bytes of a 2xx response.
// Error statuses and transport failures come out as the caller's error class (FailureFactory),
// carrying the vendor's message and Retry-After.
import { Agent, request, type Dispatcher } from 'undici';
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { isRetryableStatus, vendorErrorMessage, type FailureFactory } from './failure.js';
import { parseRetryAfter } from './retry.js';
import { openSpan, SpanKind } from '../../shared/tracing.js';

export interface HttpTimeouts {
  /** TCP/TLS connect, enforced by undici's connector. */
  connectMs: number;
  /** From sending the request to the first byte of the response body. */
  firstByteMs: number;
  /** Longest silence between two body chunks once streaming. */
  idleMs: number;
  /** The whole attempt, 0 for none. */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  connectMs: 5_000,
  firstByteMs: 20_000,
  idleMs: 30_000,
  totalMs: 180_000,
};

export interface HttpCall {
  provider: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body: unknown;
  signal?: AbortSignal;
  clock: Clock;
  timeouts: HttpTimeouts;
  dispatcher: Dispatcher;
  fail: FailureFactory;
}

/** An undici Agent whose only timeout is the connect one; the others run on our clock. */
export function createDispatcher(connectMs: number): Dispatcher {
  return new Agent({
    connect: { timeout: connectMs },
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 30_000,
  });
}

const MAX_ERROR_BODY = 64 * 1024;

/** Streams the body of one attempt. Aborting `signal` rejects with the signal's reason. */
export async function* postStream(call: HttpCall): AsyncGenerator<Uint8Array> {
  const { clock, timeouts, provider } = call;
  const ctl = new AbortController();
  let timedOut: Error | undefined;
  const fire = (what: string, ms: number) => () => {
    timedOut = call.fail(`${provider}: ${what} timeout after ${ms} ms`, 'timeout', { retryable: true });
    ctl.abort(timedOut);
  };
  let phase: TimerHandle | undefined = clock.setTimeout(
    fire('first byte', timeouts.firstByteMs),
    timeouts.firstByteMs,
  );
  const total =
    timeouts.totalMs > 0 ? clock.setTimeout(fire('total', timeouts.totalMs), timeouts.totalMs) : undefined;
  const onAbort = () => ctl.abort(call.signal?.reason);
  if (call.signal?.aborted) onAbort();
  else call.signal?.addEventListener('abort', onAbort, { once: true });
  let res: Dispatcher.ResponseData | undefined;
  // The vendor request's span, from sending it to the end of its body (the query is left out of
  // the address: some vendors take their key there).
  const span = openSpan(
    `POST ${provider}`,
    { 'switchboard.provider': provider, 'http.request.method': 'POST', 'url.full': call.url.split('?')[0]! },
    { kind: SpanKind.CLIENT },
  );
  try {
    try {
      res = await request(call.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...call.headers },
        body: JSON.stringify(call.body),
        dispatcher: call.dispatcher,
        signal: ctl.signal,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        const text = await readLimited(res.body, MAX_ERROR_BODY);
        const status = res.statusCode;
        throw call.fail(`${provider}: HTTP ${status}: ${vendorErrorMessage(text) || 'no details'}`, 'http', {
          status,
          retryable: isRetryableStatus(status),
          retryAfterMs: parseRetryAfter(res.headers, clock.now()),
        });
      }
      span.set({ 'http.response.status_code': res.statusCode });
      for await (const chunk of res.body) {
        // Every chunk (SSE comments and keep-alives included) proves the vendor is alive.
        if (phase) clock.clearTimeout(phase);
        phase = clock.setTimeout(fire('idle', timeouts.idleMs), timeouts.idleMs);
        yield chunk as Uint8Array;
      }
    } catch (err) {
      const failure = translate(err, call, timedOut);
      span.fail(failure);
      throw failure;
    }
  } finally {
    span.end();
    if (phase) clock.clearTimeout(phase);
    if (total) clock.clearTimeout(total);
    call.signal?.removeEventListener('abort', onAbort);
    // A consumer that stops early (break, abort) must not leave the socket streaming.
    if (res && !res.body.destroyed) res.body.destroy();
    if (!ctl.signal.aborted) ctl.abort();
  }
}

function translate(err: unknown, call: HttpCall, timedOut: Error | undefined): unknown {
  if (timedOut) return timedOut;
  if (call.signal?.aborted) return call.signal.reason ?? err;
  if (isFromFactory(err)) return err;
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  return call.fail(`${call.provider}: ${code ? `${code} ` : ''}${message}`, 'network', {
    retryable: true,
    cause: err,
  });
}

/** Errors built by a FailureFactory carry a `kind`; undici's own errors do not. */
function isFromFactory(err: unknown): boolean {
  return (
    typeof (err as { kind?: unknown }).kind === 'string' &&
    typeof (err as { retryable?: unknown }).retryable === 'boolean'
  );
}

async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    parts.push(Buffer.from(chunk));
    size += chunk.byteLength;
    if (size >= limit) break;
  }
  return Buffer.concat(parts).toString('utf8').slice(0, limit);
}
