// A provider that answers with a second provider when the first fails before saying anything.
// Once any text or tool call has reached the caller, a failure is final: switching then would
// make the agent say part of an answer twice.
import type { LlmProvider, LlmRequest, LlmStreamEvent } from './llm.types.js';
import { LlmError } from './llm.types.js';

export interface FallbackLeg {
  provider: LlmProvider;
  /** The model for this leg; the request's own model when unset. */
  model?: string;
}

export interface FallbackOptions {
  /** Told each time a leg fails and the next one takes over (logs, metrics). */
  onFallback?: (info: { from: string; to: string; error: LlmError }) => void;
}

export class FallbackProvider implements LlmProvider {
  readonly id: string;
  private readonly legs: FallbackLeg[];

  constructor(
    legs: FallbackLeg[],
    private readonly options: FallbackOptions = {},
  ) {
    if (legs.length === 0) throw new Error('FallbackProvider needs at least one provider');
    this.legs = legs;
    // The primary's id: the engine bills and reports by the agent's configured provider.
    this.id = legs[0]!.provider.id;
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
    for (let i = 0; i < this.legs.length; i++) {
      const leg = this.legs[i]!;
      let spoke = false;
      try {
        const req = leg.model ? { ...request, model: leg.model } : request;
        for await (const ev of leg.provider.stream(req)) {
          if (ev.type !== 'done') spoke = true;
          // Usage belongs to whoever answered; the caller only knows this provider's id.
          yield ev.type === 'done' && ev.provider === undefined ? { ...ev, provider: leg.provider.id } : ev;
        }
        return;
      } catch (err) {
        const last = i === this.legs.length - 1;
        // The caller's abort (barge-in, hangup) is not a provider failure.
        if (spoke || last || request.signal?.aborted || !(err instanceof LlmError)) throw err;
        this.options.onFallback?.({ from: leg.provider.id, to: this.legs[i + 1]!.provider.id, error: err });
      }
    }
  }
}
