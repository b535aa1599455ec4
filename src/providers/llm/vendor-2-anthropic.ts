// llm_vendor_2: Anthropic Messages (POST {base}/v1/messages, x-api-key, anthropic-version, SSE of
// message_start / content_block_* / message_delta / message_stop). System prompts go top-level;
// tool results travel as tool_result blocks in a user turn.
import {
  CONVERSATION_OPENER,
  HttpLlmProvider,
  emptyUsage,
  parseData,
  protocolError,
  type HttpLlmOptions,
  type StreamDecoder,
  type VendorRequest,
} from './base.js';
import { isRetryableStatus } from '../shared/failure.js';
import { LlmTransportError } from './errors.js';
import type { LlmMessage, LlmRequest, LlmStreamEvent, LlmUsage } from './llm.types.js';
import type { SseEvent } from '../shared/sse.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** The API requires max_tokens; this is the cap when the agent sets none (a spoken reply is short). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

export function toAnthropicMessages(messages: LlmMessage[]): { system?: string; messages: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    // Consecutive turns of one role merge: every tool_result of a round must sit in one user turn.
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (m.content) system.push(m.content);
        break;
      case 'user':
        push('user', m.content ? [{ type: 'text', text: m.content }] : []);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: m.content }]);
        break;
      case 'assistant': {
        const blocks: Block[] = m.content ? [{ type: 'text', text: m.content }] : [];
        for (const c of m.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: parseArguments(c.arguments) });
        }
        push('assistant', blocks);
        break;
      }
    }
  }
  // Also when there is nothing but the system prompt (an agent opening the call itself).
  if (turns[0]?.role !== 'user') {
    turns.unshift({ role: 'user', content: [{ type: 'text', text: CONVERSATION_OPENER }] });
  }
  return system.length ? { system: system.join('\n\n'), messages: turns } : { messages: turns };
}

/** tool_use.input must be an object; the contract carries the model's JSON text. */
function parseArguments(text: string): unknown {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export class AnthropicMessagesProvider extends HttpLlmProvider {
  constructor(options: HttpLlmOptions = {}, id = 'llm_vendor_2') {
    super({ id, defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL, versionSuffix: '/v1' }, options);
  }

  protected buildRequest(request: LlmRequest): VendorRequest {
    const { system, messages } = toAnthropicMessages(request.messages);
    const body: Record<string, unknown> = {
      model: request.model,
      max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages,
      stream: true,
    };
    if (system !== undefined) body.system = system;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.tools?.length) {
      body.tools = request.tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters,
      }));
    }
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    return { path: '/v1/messages', headers, body };
  }

  protected createDecoder(_request: LlmRequest): StreamDecoder {
    return new AnthropicDecoder(this.id);
  }
}

const STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

/** Anthropic error types and the HTTP status each stands for (errors can arrive inside a 200 stream). */
const ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  request_too_large: 413,
  invalid_request_error: 400,
};

interface StreamData {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage; model?: string };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export class AnthropicDecoder implements StreamDecoder {
  private readonly tools = new Map<number, { id: string; name: string; json: string }>();
  private usage: LlmUsage = emptyUsage();
  private stopReason: string | undefined;
  private stopped = false;
  private model: string | undefined;

  constructor(private readonly provider: string) {}

  onEvent(ev: SseEvent): LlmStreamEvent[] {
    const d = parseData<StreamData>(this.provider, ev.data);
    switch (d.type ?? ev.event) {
      case 'message_start':
        this.model = d.message?.model;
        this.addUsage(d.message?.usage);
        return [];
      case 'content_block_start':
        // A text block normally starts empty; if it does not, that text is part of the answer.
        if (d.content_block?.type === 'text' && d.content_block.text) {
          return [{ type: 'text', delta: d.content_block.text }];
        }
        if (d.content_block?.type === 'tool_use') {
          this.tools.set(d.index ?? 0, {
            id: d.content_block.id ?? '',
            name: d.content_block.name ?? '',
            json: '',
          });
        }
        return [];
      case 'content_block_delta':
        if (d.delta?.type === 'text_delta' && d.delta.text) return [{ type: 'text', delta: d.delta.text }];
        if (d.delta?.type === 'input_json_delta') {
          const tool = this.tools.get(d.index ?? 0);
          if (!tool) throw protocolError(this.provider, `input_json_delta for unknown block ${d.index}`);
          tool.json += d.delta.partial_json ?? '';
        }
        return []; // thinking and signature deltas are not spoken
      case 'content_block_stop': {
        const tool = this.tools.get(d.index ?? 0);
        if (!tool) return [];
        this.tools.delete(d.index ?? 0);
        return [{ type: 'tool_call', call: { id: tool.id, name: tool.name, arguments: tool.json || '{}' } }];
      }
      case 'message_delta':
        if (d.delta?.stop_reason) this.stopReason = STOP[d.delta.stop_reason] ?? d.delta.stop_reason;
        this.addUsage(d.usage);
        return [];
      case 'message_stop':
        this.stopped = true;
        return [];
      case 'error': {
        const type = d.error?.type ?? 'error';
        const status = ERROR_STATUS[type];
        throw new LlmTransportError(
          `${this.provider}: ${type}: ${d.error?.message ?? ''}`.trim(),
          this.provider,
          'stream',
          {
            status,
            retryable: status !== undefined && isRetryableStatus(status),
          },
        );
      }
      default:
        return []; // ping, and event types added later
    }
  }

  finish(): LlmStreamEvent[] {
    if (!this.stopped) throw protocolError(this.provider, 'stream ended before message_stop');
    const reason = this.stopReason ?? 'stop';
    return [
      { type: 'done', usage: this.usage, finishReason: reason, ...(this.model ? { model: this.model } : {}) },
    ];
  }

  /** message_start carries the input count; message_delta the running output count (not a delta). */
  private addUsage(u: AnthropicUsage | undefined): void {
    if (!u) return;
    const input =
      (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    if (u.input_tokens !== undefined) this.usage.inputTokens = input;
    if (u.output_tokens !== undefined) this.usage.outputTokens = u.output_tokens;
  }
}
