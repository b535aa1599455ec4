// The failure vocabulary shared by the provider adapters (LLM, TTS, STT). Each family throws its
// own error class (LlmError for the engine; TtsError and SttError, both a ProviderFailure); the
// HTTP layer builds them through a FailureFactory so it never needs to know which family it serves.

export type FailureKind =
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

export interface FailureDetails {
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

/** A vendor call that failed: which provider, what kind of failure, and whether to try again. */
export class ProviderFailure extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    readonly provider: string,
    readonly kind: FailureKind,
    details: FailureDetails = {},
  ) {
    super(message);
    this.status = details.status;
    this.retryable = details.retryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
    if (details.cause !== undefined) (this as { cause?: unknown }).cause = details.cause;
  }
}

export type FailureFactory = (message: string, kind: FailureKind, details?: FailureDetails) => Error;

/** What the retry policy reads from an error; every family's error class has these fields. */
export interface RetryableFailure {
  retryable: boolean;
  kind?: FailureKind;
  retryAfterMs?: number;
}

/** Statuses worth trying again: rate limits, request timeouts and conflicts, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status === 409 || status >= 500;
}

/**
 * The human part of a vendor's error body. OpenAI-style `{error: {message}}`, Anthropic's
 * `{type: "error", error: {type, message}}`, Google's `{error: {code, message, status}}` and
 * ElevenLabs' `{detail: {message}}` are recognised; anything else is shown as a short excerpt.
 */
export function vendorErrorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    const rec = (Array.isArray(body) ? body[0] : body) as Record<string, unknown> | undefined;
    for (const key of ['error', 'detail']) {
      const err = rec?.[key] as Record<string, unknown> | string | undefined;
      if (typeof err === 'string') return err;
      if (err && typeof err.message === 'string') return err.message;
    }
    if (rec && typeof rec.message === 'string') return rec.message;
    if (rec && typeof rec.err_msg === 'string') return rec.err_msg;
  } catch {
    // not JSON: fall through to the excerpt
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
