// llm_vendor_1: OpenAI Chat Completions (POST {base}/v1/chat/completions, bearer key, SSE).
import { HttpLlmProvider, type HttpLlmOptions, type StreamDecoder, type VendorRequest } from './base.js';
import type { LlmRequest } from './llm.types.js';
import { ChatCompletionDecoder, chatCompletionBody } from './openai-protocol.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com';

export class OpenAiChatProvider extends HttpLlmProvider {
  constructor(options: HttpLlmOptions = {}, id = 'llm_vendor_1') {
    super({ id, defaultBaseUrl: OPENAI_DEFAULT_BASE_URL, versionSuffix: '/v1' }, options);
  }

  protected buildRequest(request: LlmRequest): VendorRequest {
    const body = chatCompletionBody(request);
    // OpenAI replaced max_tokens with max_completion_tokens (reasoning models refuse the old one).
    if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
    const headers: Record<string, string> = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    return { path: '/v1/chat/completions', headers, body };
  }

  protected createDecoder(_request: LlmRequest): StreamDecoder {
    return new ChatCompletionDecoder(this.id);
  }
}
