// What the engine imports from the LLM providers: the contract, the registry, fallback. The
// scripted fake for tests lives in ../testing/fake-llm.ts.
export * from './llm.types.js';
export {
  createLlmAdapter,
  createLlmProvider,
  createLlmRegistry,
  isLlmProviderId,
  parseLlmFallbacks,
  LLM_PROTOCOLS,
  LLM_PROVIDER_IDS,
  type AdapterOptions,
  type CreateLlmProviderOptions,
  type FallbackTarget,
  type LlmProviderId,
  type LlmRegistry,
  type LlmRegistryOptions,
} from './registry.js';
export { FallbackProvider, type FallbackLeg, type FallbackOptions } from './fallback.js';
export type { HttpLlmOptions, LlmCallMetrics, Sleep } from './base.js';
export { LlmTransportError, type LlmFailureKind } from './errors.js';
export type { HttpTimeouts } from '../shared/http-stream.js';
export type { RetryPolicy } from '../shared/retry.js';
export type { RouterRouting } from './vendor-4-router.js';
