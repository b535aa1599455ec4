// Builds LLM providers from Config: one adapter per provider id of the spec, its key and base URL
// from the environment (LLM_VENDOR_n_API_KEY / _BASE_URL), an optional fallback, and a registry
// the engine asks by the agent's `llm_provider`.
import type { Config } from '../../config/config.js';
import type { HttpLlmOptions, HttpLlmProvider } from './base.js';
import { FallbackProvider, type FallbackOptions } from './fallback.js';
import { LlmError, type LlmProvider } from './llm.types.js';
import { OpenAiChatProvider } from './vendor-1-openai.js';
import { AnthropicMessagesProvider } from './vendor-2-anthropic.js';
import { GeminiProvider } from './vendor-3-gemini.js';
import { RouterChatProvider, type RouterRouting } from './vendor-4-router.js';

export const LLM_PROVIDER_IDS = ['llm_vendor_1', 'llm_vendor_2', 'llm_vendor_3', 'llm_vendor_4'] as const;
export type LlmProviderId = (typeof LLM_PROVIDER_IDS)[number];

/** Which wire protocol each identifier speaks (docs/providers.md says the same). */
export const LLM_PROTOCOLS: Record<LlmProviderId, string> = {
  llm_vendor_1: 'OpenAI Chat Completions',
  llm_vendor_2: 'Anthropic Messages',
  llm_vendor_3: 'Google Gemini generateContent',
  llm_vendor_4: 'OpenAI-compatible router (OpenRouter-style model routing)',
};

export function isLlmProviderId(id: string): id is LlmProviderId {
  return (LLM_PROVIDER_IDS as readonly string[]).includes(id);
}

export type FallbackTarget = string | { id: string; model?: string };

/** Everything but the key and base URL, which come from Config. */
export type AdapterOptions = Omit<HttpLlmOptions, 'apiKey' | 'baseUrl'> & {
  /** llm_vendor_4 only: fallback models and upstream preferences. */
  routing?: RouterRouting;
};

export interface CreateLlmProviderOptions extends AdapterOptions, FallbackOptions {
  /** A second provider used when this one fails before any output. */
  fallback?: FallbackTarget;
}

type ProvidersConfig = Pick<Config, 'providers'> & Partial<Pick<Config, 'llmFallbacks'>>;

/**
 * Reads a fallback map written as text, for whoever wires it from the environment:
 * `llm_vendor_1=llm_vendor_2:claude-3-5-haiku-latest, llm_vendor_3=llm_vendor_4` (the model after
 * the colon is optional; it may itself contain colons and slashes).
 */
export function parseLlmFallbacks(text: string): Record<string, FallbackTarget> {
  const out: Record<string, FallbackTarget> = {};
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9_]+)\s*=\s*([a-z0-9_]+)(?::(.+))?$/i.exec(entry);
    if (!m || !isLlmProviderId(m[1]!) || !isLlmProviderId(m[2]!) || m[1] === m[2]) {
      throw new Error(`invalid LLM fallback "${entry}": expected <llm_vendor_n>=<llm_vendor_m>[:model]`);
    }
    out[m[1]!] = m[3] ? { id: m[2]!, model: m[3].trim() } : m[2]!;
  }
  return out;
}

/** The bare adapter for one id, without fallback. */
export function createLlmAdapter(
  id: string,
  config: ProvidersConfig,
  options: AdapterOptions = {},
): HttpLlmProvider {
  const entry = config.providers[id] ?? { apiKey: undefined, baseUrl: undefined };
  const { routing, ...rest } = options;
  const http: HttpLlmOptions = { ...rest, apiKey: entry.apiKey, baseUrl: entry.baseUrl };
  switch (id) {
    case 'llm_vendor_1':
      return new OpenAiChatProvider(http);
    case 'llm_vendor_2':
      return new AnthropicMessagesProvider(http);
    case 'llm_vendor_3':
      return new GeminiProvider(http);
    case 'llm_vendor_4':
      return new RouterChatProvider({ ...http, routing });
    default:
      throw new LlmError(`unknown LLM provider "${id}"`, id);
  }
}

export function createLlmProvider(
  id: string,
  config: ProvidersConfig,
  options: CreateLlmProviderOptions = {},
): LlmProvider {
  const { fallback, onFallback, ...adapter } = options;
  const primary = createLlmAdapter(id, config, adapter);
  if (!fallback) return primary;
  const target = typeof fallback === 'string' ? { id: fallback } : fallback;
  const secondary = createLlmAdapter(target.id, config, adapter);
  return new FallbackProvider([{ provider: primary }, { provider: secondary, model: target.model }], {
    onFallback,
  });
}

export interface LlmRegistry {
  /** The provider for an agent's `llm_provider`; throws LlmError for an unknown id. */
  get(id: string): LlmProvider;
  has(id: string): boolean;
  /** Like get, but undefined for an unknown id (the engine's `llm` lookup takes this shape). */
  find(id: string): LlmProvider | undefined;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

export interface LlmRegistryOptions extends AdapterOptions, FallbackOptions {
  /** Per primary id, the provider (and model) to fall back to. */
  fallbacks?: Partial<Record<string, FallbackTarget>>;
  /** Providers used instead of the adapters, by id (the scripted provider in tests and benchmarks). */
  overrides?: Record<string, LlmProvider>;
}

export function createLlmRegistry(config: ProvidersConfig, options: LlmRegistryOptions = {}): LlmRegistry {
  const {
    fallbacks = config.llmFallbacks ? parseLlmFallbacks(config.llmFallbacks) : {},
    overrides = {},
    onFallback,
    ...adapter
  } = options;
  const adapters = new Map<string, HttpLlmProvider>();
  const resolved = new Map<string, LlmProvider>();
  const base = (id: string): LlmProvider => {
    if (overrides[id]) return overrides[id];
    let a = adapters.get(id);
    if (!a) {
      a = createLlmAdapter(id, config, adapter);
      adapters.set(id, a);
    }
    return a;
  };
  const known = (id: string) => id in overrides || isLlmProviderId(id);
  const registry: LlmRegistry = {
    get(id) {
      const hit = resolved.get(id);
      if (hit) return hit;
      if (!known(id)) throw new LlmError(`unknown LLM provider "${id}"`, id);
      const fb = fallbacks[id];
      const target = typeof fb === 'string' ? { id: fb } : fb;
      const provider =
        target && target.id !== id
          ? new FallbackProvider(
              [{ provider: base(id) }, { provider: base(target.id), model: target.model }],
              {
                onFallback,
              },
            )
          : base(id);
      resolved.set(id, provider);
      return provider;
    },
    has: known,
    find: (id) => (known(id) ? registry.get(id) : undefined),
    async close() {
      await Promise.all([...adapters.values()].map((a) => a.close()));
      adapters.clear();
      resolved.clear();
    },
  };
  return registry;
}
