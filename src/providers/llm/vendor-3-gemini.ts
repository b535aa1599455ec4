// llm_vendor_3: Google Gemini (POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse,
// x-goog-api-key). Conversation as `contents` of user/model turns, the system prompt as
// `systemInstruction`, tools as `functionDeclarations`, calls and results as functionCall /
// functionResponse parts. Each SSE event is a whole GenerateContentResponse.
import { randomUUID } from 'node:crypto';
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
import { LlmTransportError } from './errors.js';
import type { LlmMessage, LlmRequest, LlmStreamEvent, LlmUsage } from './llm.types.js';
import type { SseEvent } from '../shared/sse.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

type Part =
  | { text: string }
  | { functionCall: { name: string; args: unknown; id?: string }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

export function toGeminiContents(
  messages: LlmMessage[],
  signatures: ReadonlyMap<string, string> = new Map(),
): {
  systemInstruction?: { parts: { text: string }[] };
  contents: Content[];
} {
  const system: { text: string }[] = [];
  const contents: Content[] = [];
  // functionResponse names the function, the contract's tool message only its call id.
  const callNames = new Map<string, string>();
  const push = (role: Content['role'], parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (m.content) system.push({ text: m.content });
        break;
      case 'user':
        push('user', m.content ? [{ text: m.content }] : []);
        break;
      case 'assistant': {
        const parts: Part[] = m.content ? [{ text: m.content }] : [];
        for (const c of m.tool_calls ?? []) {
          callNames.set(c.id, c.name);
          const part: Part = { functionCall: { name: c.name, args: parseObject(c.arguments), id: c.id } };
          const signature = signatures.get(c.id);
          if (signature) part.thoughtSignature = signature;
          parts.push(part);
        }
        push('model', parts);
        break;
      }
      case 'tool': {
        const id = m.tool_call_id ?? '';
        const name = m.name ?? callNames.get(id) ?? '';
        push('user', [{ functionResponse: { name, response: toResponseObject(m.content), id } }]);
        break;
      }
    }
  }
  // Also when there is nothing but the system prompt (an agent opening the call itself).
  if (contents[0]?.role !== 'user')
    contents.unshift({ role: 'user', parts: [{ text: CONVERSATION_OPENER }] });
  return system.length ? { systemInstruction: { parts: system }, contents } : { contents };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** functionResponse.response must be an object: a JSON object passes as is, anything else is wrapped. */
function toResponseObject(content: string): Record<string, unknown> {
  try {
    const v = JSON.parse(content) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    return { result: v };
  } catch {
    return { result: content };
  }
}

/**
 * Thinking models attach an opaque thoughtSignature to function calls and refuse the next turn
 * unless it comes back with the call. The contract's LlmToolCall has no room for it, so the
 * adapter remembers the signatures of the calls it produced, by call id (bounded, oldest out).
 */
class SignatureMemory {
  private readonly map = new Map<string, string>();
  constructor(private readonly max = 2000) {}
  get view(): ReadonlyMap<string, string> {
    return this.map;
  }
  remember(id: string, signature: string): void {
    this.map.set(id, signature);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

export class GeminiProvider extends HttpLlmProvider {
  private readonly signatures = new SignatureMemory();

  constructor(options: HttpLlmOptions = {}, id = 'llm_vendor_3') {
    super({ id, defaultBaseUrl: GEMINI_DEFAULT_BASE_URL, versionSuffix: '/v1beta' }, options);
  }

  protected buildRequest(request: LlmRequest): VendorRequest {
    const body: Record<string, unknown> = { ...toGeminiContents(request.messages, this.signatures.view) };
    if (request.tools?.length) {
      // parametersJsonSchema takes standard JSON Schema; the older `parameters` field takes an
      // OpenAPI subset that rejects keywords agents commonly use (additionalProperties, $schema).
      body.tools = [
        {
          functionDeclarations: request.tools.map((t) => ({
            name: t.name,
            description: t.description,
            parametersJsonSchema: t.parameters,
          })),
        },
      ];
    }
    const generationConfig: Record<string, unknown> = {};
    if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
    if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens;
    if (Object.keys(generationConfig).length) body.generationConfig = generationConfig;
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['x-goog-api-key'] = this.apiKey;
    const model = request.model.replace(/^models\//, '');
    return {
      path: `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
      headers,
      body,
    };
  }

  protected createDecoder(_request: LlmRequest): StreamDecoder {
    return new GeminiDecoder(this.id, (id, sig) => this.signatures.remember(id, sig));
  }
}

const FINISH: Record<string, string> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: unknown; id?: string };
  thoughtSignature?: string;
}

interface GeminiChunk {
  modelVersion?: string;
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number };
  promptFeedback?: { blockReason?: string };
  error?: { code?: number; message?: string; status?: string };
}

export class GeminiDecoder implements StreamDecoder {
  private usage: LlmUsage = emptyUsage();
  private finishReason: string | undefined;
  private calls = 0;
  private model: string | undefined;

  constructor(
    private readonly provider: string,
    private readonly onSignature: (callId: string, signature: string) => void = () => {},
    private readonly newCallId: () => string = () => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
  ) {}

  onEvent(ev: SseEvent): LlmStreamEvent[] {
    const chunk = parseData<GeminiChunk>(this.provider, ev.data);
    if (chunk.error) {
      const status = chunk.error.code;
      throw new LlmTransportError(
        `${this.provider}: ${chunk.error.message ?? chunk.error.status ?? 'error'}`,
        this.provider,
        'stream',
        {
          status,
          retryable: status === 429 || (status ?? 0) >= 500,
        },
      );
    }
    if (chunk.modelVersion) this.model = chunk.modelVersion;
    const u = chunk.usageMetadata;
    if (u) {
      // Thinking tokens are billed as output, so they count as output here.
      this.usage = {
        inputTokens: u.promptTokenCount ?? 0,
        outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
      };
    }
    if (chunk.promptFeedback?.blockReason) this.finishReason = 'content_filter';
    const out: LlmStreamEvent[] = [];
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        // Gemini sends each call whole; most models give no id, so we make a unique one (it also
        // keys the signature memory across turns).
        this.calls++;
        const id = part.functionCall.id || this.newCallId();
        if (part.thoughtSignature) this.onSignature(id, part.thoughtSignature);
        out.push({
          type: 'tool_call',
          call: {
            id,
            name: part.functionCall.name ?? '',
            arguments: JSON.stringify(part.functionCall.args ?? {}),
          },
        });
      } else if (part.text && !part.thought) {
        out.push({ type: 'text', delta: part.text });
      }
    }
    if (candidate?.finishReason) this.finishReason = FINISH[candidate.finishReason] ?? candidate.finishReason;
    return out;
  }

  finish(): LlmStreamEvent[] {
    if (this.finishReason === undefined)
      throw protocolError(this.provider, 'stream ended without a finishReason');
    // Gemini says STOP after function calls too; the contract says tool_calls.
    const reason = this.finishReason === 'stop' && this.calls > 0 ? 'tool_calls' : this.finishReason;
    return [
      { type: 'done', usage: this.usage, finishReason: reason, ...(this.model ? { model: this.model } : {}) },
    ];
  }
}
