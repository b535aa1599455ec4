// The scripted LLM provider: answers each request with the next scripted reply (text and/or tool
// calls) after a set time to first token on the injected clock, and records every request it got.
// A real provider, not a test fake: workflow simulations (POST /workflows/{id}/simulate with
// `stubs.llm`) run agents on it, and so do benchmarks and tests that assert on prompts and tools.
import type { Clock } from '../../shared/clock.js';
import {
  LlmError,
  type LlmProvider,
  type LlmRequest,
  type LlmStreamEvent,
  type LlmUsage,
} from './llm.types.js';

export interface ScriptedReply {
  text?: string;
  toolCalls?: { name: string; arguments?: Record<string, unknown> | string; id?: string }[];
  /** Overrides the estimated token counts. */
  usage?: LlmUsage;
  /** Makes this request fail with an LlmError carrying this message. */
  error?: string;
}

export type ScriptedStep = ScriptedReply | ((request: LlmRequest, index: number) => ScriptedReply);

export interface ScriptedLlmOptions {
  id?: string;
  clock: Clock;
  /** Replies in order; when they run out, `fallback` answers (default: an empty text reply). */
  replies?: ScriptedStep[];
  fallback?: ScriptedStep;
  /** Time to first token, on the clock. 0 = the first event comes without waiting on a timer. */
  firstTokenMs?: number;
  /** Keep a copy of every request (default true); benchmarks turn it off. */
  recordRequests?: boolean;
}

/** Rough token estimate (4 characters per token), deterministic so usage assertions hold. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export class ScriptedLlm implements LlmProvider {
  readonly id: string;
  readonly requests: LlmRequest[] = [];
  firstTokenMs: number;
  private readonly clock: Clock;
  private readonly replies: ScriptedStep[];
  private readonly fallback: ScriptedStep;
  private served = 0;
  private readonly record: boolean;

  constructor(options: ScriptedLlmOptions) {
    this.id = options.id ?? 'fake';
    this.clock = options.clock;
    this.replies = [...(options.replies ?? [])];
    this.fallback = options.fallback ?? { text: '' };
    this.firstTokenMs = options.firstTokenMs ?? 0;
    this.record = options.recordRequests ?? true;
  }

  /** Appends replies to the script. */
  script(...replies: ScriptedStep[]): this {
    this.replies.push(...replies);
    return this;
  }

  async *stream(request: LlmRequest): AsyncIterable<LlmStreamEvent> {
    const index = this.served++;
    if (this.record) {
      this.requests.push({ ...request, messages: request.messages.map((m) => ({ ...m })) });
    }
    const script = this.replies.length > 0 ? this.replies.shift()! : this.fallback;
    const reply = typeof script === 'function' ? script(request, index) : script;
    if (this.firstTokenMs > 0) await this.delay(this.firstTokenMs, request.signal);
    if (request.signal?.aborted) throw request.signal.reason;
    if (reply.error) throw new LlmError(reply.error, this.id, 500);
    const text = reply.text ?? '';
    if (text) {
      // Word-sized deltas, like a real stream, so consumers handle several chunks.
      for (const part of text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'text', delta: part };
    }
    let n = 0;
    for (const call of reply.toolCalls ?? []) {
      yield {
        type: 'tool_call',
        call: {
          id: call.id ?? `call_${index}_${n++}`,
          name: call.name,
          arguments:
            typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
        },
      };
    }
    const usage = reply.usage ?? {
      inputTokens: estimateTokens(request.messages.map((m) => m.content).join('\n')),
      outputTokens: estimateTokens(text),
    };
    yield { type: 'done', usage, finishReason: reply.toolCalls?.length ? 'tool_calls' : 'stop' };
  }

  private delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        this.clock.clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = this.clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
