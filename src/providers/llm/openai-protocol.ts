// The OpenAI Chat Completions wire protocol, shared by llm_vendor_1 (OpenAI itself) and
// llm_vendor_4 (an OpenAI-compatible router): message and tool translation, and the decoder of
// the `chat.completion.chunk` SSE stream, where tool calls arrive as fragments keyed by index.
import { emptyUsage, parseData, protocolError, type StreamDecoder } from './base.js';
import { LlmTransportError } from './errors.js';
import type { LlmMessage, LlmRequest, LlmStreamEvent, LlmTool, LlmToolCall, LlmUsage } from './llm.types.js';
import type { SseEvent } from '../shared/sse.js';

type ChatMessage =
  | { role: 'system' | 'user'; content: string; name?: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export function toChatMessages(messages: LlmMessage[]): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    switch (m.role) {
      case 'assistant':
        return m.tool_calls?.length
          ? {
              role: 'assistant',
              // The API wants null, not "", beside tool calls with no spoken text.
              content: m.content === '' ? null : m.content,
              tool_calls: m.tool_calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content };
      default:
        return m.name
          ? { role: m.role, content: m.content, name: m.name }
          : { role: m.role, content: m.content };
    }
  });
}

export function toChatTools(tools: LlmTool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** The body fields every OpenAI-compatible server understands. */
export function chatCompletionBody(request: LlmRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: toChatMessages(request.messages),
    stream: true,
    // Without this the stream carries no token counts; usage comes in a last chunk with no choices.
    stream_options: { include_usage: true },
  };
  if (request.tools?.length) body.tools = toChatTools(request.tools);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface Chunk {
  model?: string;
  choices?: {
    index?: number;
    delta?: { content?: string | null; tool_calls?: ChunkToolCall[] };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: number | string };
}

const FINISH: Record<string, string> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

export class ChatCompletionDecoder implements StreamDecoder {
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private usage: LlmUsage = emptyUsage();
  private finishReason: string | undefined;
  private sawDone = false;
  private emittedCalls = false;
  private model: string | undefined;

  constructor(private readonly provider: string) {}

  onEvent(ev: SseEvent): LlmStreamEvent[] {
    if (ev.data === '[DONE]') {
      this.sawDone = true;
      return [];
    }
    const chunk = parseData<Chunk>(this.provider, ev.data);
    if (chunk.error) {
      // Routers report upstream failures inside a 200 stream; before output this is retryable.
      throw new LlmTransportError(
        `${this.provider}: ${chunk.error.message ?? 'error in stream'}`,
        this.provider,
        'stream',
        { retryable: true, status: typeof chunk.error.code === 'number' ? chunk.error.code : undefined },
      );
    }
    const out: LlmStreamEvent[] = [];
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) {
      this.usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    // n = 1: we only ever ask for one choice.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return out;
    const delta = choice.delta;
    if (delta?.content) out.push({ type: 'text', delta: delta.content });
    for (const frag of delta?.tool_calls ?? []) {
      const index = frag.index ?? this.indexWithout(frag.id);
      let call = this.calls.get(index);
      if (!call) {
        call = { id: '', name: '', args: '' };
        this.calls.set(index, call);
      }
      if (frag.id) call.id = frag.id;
      // The name normally comes whole in the first fragment; some compatible servers repeat it.
      const name = frag.function?.name;
      if (name && name !== call.name) call.name = call.name ? call.name + name : name;
      if (frag.function?.arguments) call.args += frag.function.arguments;
    }
    if (choice.finish_reason) {
      this.finishReason = FINISH[choice.finish_reason] ?? choice.finish_reason;
      out.push(...this.flushCalls());
    }
    return out;
  }

  finish(): LlmStreamEvent[] {
    if (!this.sawDone && this.finishReason === undefined) {
      throw protocolError(this.provider, 'stream ended before the completion finished');
    }
    const out = this.flushCalls();
    const reason = this.finishReason ?? (this.emittedCalls ? 'tool_calls' : 'stop');
    out.push({
      type: 'done',
      usage: this.usage,
      finishReason: reason,
      ...(this.model ? { model: this.model } : {}),
    });
    return out;
  }

  /**
   * Some compatible servers omit `index` and send each call whole in its own chunk: then a new id
   * starts a new call, and a fragment without an id continues the latest one.
   */
  private indexWithout(id: string | undefined): number {
    const last = this.calls.size ? Math.max(...this.calls.keys()) : -1;
    if (last < 0) return 0;
    return id && this.calls.get(last)!.id && this.calls.get(last)!.id !== id ? last + 1 : last;
  }

  private flushCalls(): LlmStreamEvent[] {
    const out: LlmStreamEvent[] = [];
    for (const index of [...this.calls.keys()].sort((a, b) => a - b)) {
      const c = this.calls.get(index)!;
      if (!c.name) throw protocolError(this.provider, `tool call ${index} has no name`);
      const call: LlmToolCall = { id: c.id || `call_${index}`, name: c.name, arguments: c.args || '{}' };
      out.push({ type: 'tool_call', call });
      this.emittedCalls = true;
    }
    this.calls.clear();
    return out;
  }
}
