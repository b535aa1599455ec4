// A scripted LLM for engine and flow tests: answers each call with the next scripted turn, streams
// text in the given pieces, and can wait a set time to first token on the injected clock.
import { systemClock, type Clock } from '../../shared/clock.js';
import {
  LlmError,
  type LlmProvider,
  type LlmRequest,
  type LlmStreamEvent,
  type LlmToolCall,
  type LlmUsage,
} from './llm.types.js';

export interface ScriptedTurn {
  /** Spoken text, whole or in streaming pieces. */
  text?: string | string[];
  toolCalls?: LlmToolCall[];
  usage?: LlmUsage;
  finishReason?: string;
  /** Fail instead of answering (before any output). */
  error?: LlmError;
}

export type Script = ScriptedTurn[] | ((request: LlmRequest, index: number) => ScriptedTurn);

export interface ScriptedLlmOptions {
  id?: string;
  clock?: Clock;
  /** Delay before the first event, on `clock`. */
  timeToFirstTokenMs?: number;
}

export class ScriptedLlmProvider implements LlmProvider {
  readonly id: string;
  /** Every request received, in order (tests assert on messages and tools). */
  readonly requests: LlmRequest[] = [];
  private readonly clock: Clock;
  private readonly ttft: number;

  constructor(
    private readonly script: Script,
    options: ScriptedLlmOptions = {},
  ) {
    this.id = options.id ?? 'scripted';
    this.clock = options.clock ?? systemClock;
    this.ttft = options.timeToFirstTokenMs ?? 0;
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
    const index = this.requests.length;
    this.requests.push(request);
    const turn = typeof this.script === 'function' ? this.script(request, index) : this.script[index];
    if (!turn) throw new LlmError(`${this.id}: no scripted turn ${index + 1}`, this.id);
    if (this.ttft > 0) await this.wait(request.signal);
    request.signal?.throwIfAborted();
    if (turn.error) throw turn.error;
    const pieces = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text];
    for (const delta of pieces) {
      request.signal?.throwIfAborted();
      if (delta) yield { type: 'text', delta };
    }
    for (const call of turn.toolCalls ?? []) yield { type: 'tool_call', call };
    const outputTokens = pieces.join('').split(/\s+/).filter(Boolean).length;
    yield {
      type: 'done',
      usage: turn.usage ?? { inputTokens: 0, outputTokens },
      finishReason: turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop'),
    };
  }

  private wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.clock.clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = this.clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, this.ttft);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
