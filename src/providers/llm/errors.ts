// Failure kinds of the HTTP adapters. Every one is an LlmError (the engine's contract); the kind
// and the server's Retry-After let the retry policy and the fallback decide what to do next.
import { LlmError } from './llm.types.js';

export type LlmFailureKind =
  /** The vendor answered with an error status (see `status`). */
  | 'http'
  /** Connecting failed or the connection broke before the response started. */
  | 'network'
  /** No first byte, a silent gap or the whole call took too long. */
  | 'timeout'
  /** The vendor sent something we cannot read, or ended the stream early. */
  | 'protocol'
  /** The vendor reported an error inside the stream (overloaded, safety block, …). */
  | 'stream'
  /** Not configured (no API key). */
  | 'config';

export class LlmTransportError extends LlmError {
  constructor(
    message: string,
    provider: string,
    readonly kind: LlmFailureKind,
    options: { status?: number; retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, provider, options.status, options.retryable ?? false);
    this.name = 'LlmError';
    this.retryAfterMs = options.retryAfterMs;
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }

  readonly retryAfterMs: number | undefined;
}

/** Statuses worth trying again: rate limits, timeouts on the vendor's side, and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status === 409 || status >= 500;
}

/**
 * The human part of a vendor's error body. OpenAI-style `{error: {message}}`, Anthropic's
 * `{type: "error", error: {type, message}}` and Google's `{error: {code, message, status}}` all
 * share the `error.message` path; anything else is shown as a short excerpt.
 */
export function vendorErrorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    const rec = (Array.isArray(body) ? body[0] : body) as Record<string, unknown> | undefined;
    const err = rec?.error as Record<string, unknown> | string | undefined;
    if (typeof err === 'string') return err;
    if (err && typeof err.message === 'string') return err.message;
    if (rec && typeof rec.message === 'string') return rec.message;
  } catch {
    // not JSON: fall through to the excerpt
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** Whatever was thrown, as an LlmError of this provider. */
export function asLlmError(err: unknown, provider: string): LlmError {
  if (err instanceof LlmError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new LlmTransportError(`${provider}: ${message}`, provider, 'network', {
    retryable: true,
    cause: err,
  });
}
