// The contract between the engine (agent node) and every LLM adapter. Adapters speak their
// vendor's wire protocol and translate to and from these shapes; nothing vendor-specific leaks out.

export type LlmRole = 'system' | 'user' | 'assistant' | 'tool';

export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
}

export interface LlmMessage {
  role: LlmRole;
  content: string;
  /** On assistant messages: the tools the model called in that turn. */
  tool_calls?: LlmToolCall[];
  /** On tool messages: which call this is the result of. */
  tool_call_id?: string;
  name?: string;
}

export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  messages: LlmMessage[];
  tools?: LlmTool[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export type LlmStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: LlmToolCall }
  | {
      type: 'done';
      usage: LlmUsage;
      finishReason: string;
      /**
       * Who answered, when it may differ from the provider asked: a FallbackProvider names the
       * provider that took over. Usage belongs to this id when set.
       */
      provider?: string;
      /** The model that answered as the vendor reports it (a router may have used a fallback). */
      model?: string;
    };

export interface LlmProvider {
  /** The provider identifier of the spec: llm_vendor_1 … llm_vendor_4 (or the scripted provider's name). */
  readonly id: string;
  /** Streams one completion. Throws LlmError on failure after the adapter's own retries. */
  stream(request: LlmRequest): AsyncIterable<LlmStreamEvent>;
}

export class LlmError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}
