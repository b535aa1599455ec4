// llm_vendor_4: an OpenAI-compatible aggregator/router (OpenRouter-style). Same wire protocol as
// llm_vendor_1 (the decoder is shared), plus routing: `vendor/model` names, a `models` fallback
// list the router walks itself, and provider preferences.
import { HttpLlmProvider, type HttpLlmOptions, type StreamDecoder, type VendorRequest } from './base.js';
import type { LlmRequest } from './llm.types.js';
import { ChatCompletionDecoder, chatCompletionBody } from './openai-protocol.js';

export const ROUTER_DEFAULT_BASE_URL = 'https://openrouter.ai/api';

export interface RouterRouting {
  /** Models tried after the requested one, in order, by the router (not by us). */
  fallbackModels?: string[];
  /** Upstream provider preferences, sent as the router's `provider` object. */
  provider?: {
    order?: string[];
    allow_fallbacks?: boolean;
    sort?: 'price' | 'throughput' | 'latency';
    only?: string[];
    ignore?: string[];
    require_parameters?: boolean;
  };
  /** App attribution headers some routers use for rankings. */
  appUrl?: string;
  appTitle?: string;
}

export interface RouterOptions extends HttpLlmOptions {
  routing?: RouterRouting;
}

/**
 * Splits the agent's `llm_model` into the primary and the router's fallbacks: a comma-separated
 * value (`"openai/gpt-4o-mini, anthropic/claude-3.5-haiku"`) lets one field carry a whole chain.
 */
export function parseModelList(model: string): string[] {
  return model
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export class RouterChatProvider extends HttpLlmProvider {
  private readonly routing: RouterRouting;

  constructor(options: RouterOptions = {}, id = 'llm_vendor_4') {
    super({ id, defaultBaseUrl: ROUTER_DEFAULT_BASE_URL, versionSuffix: '/v1' }, options);
    this.routing = options.routing ?? {};
  }

  protected buildRequest(request: LlmRequest): VendorRequest {
    const [primary = request.model, ...inline] = parseModelList(request.model);
    const body = chatCompletionBody({ ...request, model: primary });
    const chain = [...inline, ...(this.routing.fallbackModels ?? [])].filter((m) => m !== primary);
    if (chain.length > 0) body.models = [primary, ...new Set(chain)];
    if (this.routing.provider) body.provider = this.routing.provider;
    // Routers take the classic field and map it per upstream.
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    const headers: Record<string, string> = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (this.routing.appUrl) headers['http-referer'] = this.routing.appUrl;
    if (this.routing.appTitle) headers['x-title'] = this.routing.appTitle;
    return { path: '/v1/chat/completions', headers, body };
  }

  protected createDecoder(_request: LlmRequest): StreamDecoder {
    return new ChatCompletionDecoder(this.id);
  }
}
