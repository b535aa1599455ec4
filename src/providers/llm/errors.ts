// The LLM family's error class for transport failures. Every one is an LlmError (the engine's
// contract); `kind` and the server's Retry-After let the retry policy and fallback decide.
import type { FailureDetails, FailureFactory, FailureKind } from '../shared/failure.js';
import { LlmError } from './llm.types.js';

export type LlmFailureKind = FailureKind;

export class LlmTransportError extends LlmError {
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    provider: string,
    readonly kind: LlmFailureKind,
    details: FailureDetails = {},
  ) {
    super(message, provider, details.status, details.retryable ?? false);
    this.name = 'LlmError';
    this.retryAfterMs = details.retryAfterMs;
    if (details.cause !== undefined) (this as { cause?: unknown }).cause = details.cause;
  }
}

export function llmFailure(provider: string): FailureFactory {
  return (message, kind, details) => new LlmTransportError(message, provider, kind, details);
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
