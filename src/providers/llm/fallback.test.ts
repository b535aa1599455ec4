import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import type { Config } from '../../config/config.js';
import { FallbackProvider } from './fallback.js';
import { LlmError, type LlmRequest } from './llm.types.js';
import { createLlmProvider, createLlmRegistry, parseLlmFallbacks } from './registry.js';
import { FakeClock } from '../../shared/clock.js';
import { ScriptedLlm, type ScriptedReply } from './scripted.js';

const clock = new FakeClock();
const fake = (id: string, ...replies: ScriptedReply[]) => new ScriptedLlm({ id, clock, replies });
const ask: LlmRequest = { model: 'primary-model', messages: [{ role: 'user', content: 'hi' }] };

describe('FallbackProvider', () => {
  it('answers with the second provider when the first fails before any output, using its model', async () => {
    const first = fake('a', { error: 'down' });
    const second = fake('b', { text: 'from b' });
    const switches: string[] = [];
    const fb = new FallbackProvider([{ provider: first }, { provider: second, model: 'b-model' }], {
      onFallback: ({ from, to, error }) => void switches.push(`${from}->${to}:${error.status}`),
    });
    const events = await collect(fb.stream(ask));
    expect(events.filter((e) => e.type === 'text').map((e) => e.delta)).toEqual(['from ', 'b']);
    expect(fb.id).toBe('a');
    expect(second.requests[0]!.model).toBe('b-model');
    expect(events.at(-1)).toMatchObject({ type: 'done', provider: 'b' });
    expect(switches).toEqual(['a->b:500']);
  });

  it('does not switch after output has been streamed', async () => {
    const first = {
      id: 'a',
      async *stream() {
        yield { type: 'text' as const, delta: 'half' };
        throw new LlmError('cut', 'a');
      },
    };
    const second = fake('b', { text: 'never' });
    const fb = new FallbackProvider([{ provider: first }, { provider: second }]);
    await expect(collect(fb.stream(ask))).rejects.toThrow('cut');
    expect(second.requests).toHaveLength(0);
  });

  it('does not switch when the caller aborted', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('hangup'));
    const first = fake('a', { text: 'x' });
    const second = fake('b', { text: 'y' });
    const fb = new FallbackProvider([{ provider: first }, { provider: second }]);
    await expect(collect(fb.stream({ ...ask, signal: ctl.signal }))).rejects.toThrow('hangup');
    expect(second.requests).toHaveLength(0);
  });

  it('throws the last provider error when every provider fails', async () => {
    const first = fake('a', { error: 'a down' });
    const second = fake('b', { error: 'b down' });
    await expect(
      collect(new FallbackProvider([{ provider: first }, { provider: second }]).stream(ask)),
    ).rejects.toMatchObject({
      message: 'b down',
      provider: 'b',
    });
  });
});

describe('createLlmProvider and createLlmRegistry against fake vendor servers', () => {
  let openai: FakeLlmServer;
  let anthropic: FakeLlmServer;
  let config: Pick<Config, 'providers'>;

  beforeEach(async () => {
    openai = await startFakeLlmServer('openai');
    anthropic = await startFakeLlmServer('anthropic');
    config = {
      providers: {
        llm_vendor_1: { apiKey: 'k1', baseUrl: openai.baseUrl },
        llm_vendor_2: { apiKey: 'k2', baseUrl: anthropic.baseUrl },
      },
    };
  });
  afterEach(async () => {
    await openai.close();
    await anthropic.close();
  });

  it('falls back from llm_vendor_1 exhausting its retries to llm_vendor_2', async () => {
    for (let i = 0; i < 2; i++)
      openai.replyRaw({ kind: 'error', status: 500, body: { error: { message: 'down' } } });
    anthropic.reply({ text: ['Claude here'], usage: { input: 3, output: 2 } });
    const provider = createLlmProvider('llm_vendor_1', config, {
      fallback: { id: 'llm_vendor_2', model: 'claude-fallback' },
      retry: { maxRetries: 1 },
      sleep: async () => {},
    });
    const events = await collect(provider.stream(ask));
    expect(events).toEqual([
      { type: 'text', delta: 'Claude here' },
      {
        type: 'done',
        usage: { inputTokens: 3, outputTokens: 2 },
        finishReason: 'stop',
        model: 'fake-model',
        provider: 'llm_vendor_2',
      },
    ]);
    expect(openai.requests).toHaveLength(2);
    expect((anthropic.requests[0]!.body as { model: string }).model).toBe('claude-fallback');
    expect(anthropic.requests[0]!.headers['x-api-key']).toBe('k2');
  });

  it('gives each id its adapter, key and base URL, caches it, and wraps configured fallbacks', async () => {
    const scripted = fake('llm_vendor_3', { text: 'fake' });
    const registry = createLlmRegistry(config, {
      fallbacks: { llm_vendor_2: 'llm_vendor_1' },
      overrides: { llm_vendor_3: scripted },
      sleep: async () => {},
    });
    expect(registry.get('llm_vendor_1')).toBe(registry.get('llm_vendor_1'));
    expect(registry.get('llm_vendor_3')).toBe(scripted);
    expect(registry.get('llm_vendor_2')).toBeInstanceOf(FallbackProvider);
    expect(registry.has('llm_vendor_4')).toBe(true);
    expect(registry.has('llm_vendor_9')).toBe(false);
    expect(() => registry.get('llm_vendor_9')).toThrow(LlmError);
    expect(registry.find('llm_vendor_9')).toBeUndefined();
    expect(registry.find('llm_vendor_3')).toBe(scripted);

    openai.reply({ text: ['gpt'] });
    const events = await collect(registry.get('llm_vendor_1').stream(ask));
    expect(events[0]).toEqual({ type: 'text', delta: 'gpt' });
    expect(openai.requests[0]!.headers.authorization).toBe('Bearer k1');

    anthropic.replyRaw({
      kind: 'error',
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'bad key' } },
    });
    openai.reply({ text: ['rescued'] });
    const rescued = await collect(registry.get('llm_vendor_2').stream(ask));
    expect(rescued[0]).toEqual({ type: 'text', delta: 'rescued' });
    await registry.close();
  });

  it('takes its fallbacks from configuration (LLM_FALLBACKS) when none are passed', async () => {
    const registry = createLlmRegistry(
      { ...config, llmFallbacks: 'llm_vendor_2=llm_vendor_1' },
      { sleep: async () => {} },
    );
    expect(registry.get('llm_vendor_2')).toBeInstanceOf(FallbackProvider);
    expect(registry.get('llm_vendor_1')).not.toBeInstanceOf(FallbackProvider);
    anthropic.replyRaw({
      kind: 'error',
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'x' } },
    });
    openai.reply({ text: ['from config'] });
    expect((await collect(registry.get('llm_vendor_2').stream(ask)))[0]).toEqual({
      type: 'text',
      delta: 'from config',
    });
    await registry.close();
    expect(() => createLlmRegistry({ providers: {}, llmFallbacks: 'llm_vendor_1=nope' })).toThrow(
      /invalid LLM fallback/,
    );
  });

  it('uses the public base URL and fails without a key when nothing is configured', async () => {
    const registry = createLlmRegistry({ providers: {} });
    await expect(collect(registry.get('llm_vendor_4').stream(ask))).rejects.toThrow(/LLM_VENDOR_4_API_KEY/);
    await registry.close();
  });
});

describe('parseLlmFallbacks', () => {
  it('reads primary=fallback[:model] pairs', () => {
    expect(
      parseLlmFallbacks(' llm_vendor_1=llm_vendor_2:claude-3-5-haiku-latest , llm_vendor_3=llm_vendor_4 '),
    ).toEqual({
      llm_vendor_1: { id: 'llm_vendor_2', model: 'claude-3-5-haiku-latest' },
      llm_vendor_3: 'llm_vendor_4',
    });
    expect(parseLlmFallbacks('llm_vendor_2=llm_vendor_4:openai/gpt-4o-mini')).toEqual({
      llm_vendor_2: { id: 'llm_vendor_4', model: 'openai/gpt-4o-mini' },
    });
    expect(parseLlmFallbacks('')).toEqual({});
  });

  it('refuses unknown ids, self-fallback and malformed entries', () => {
    expect(() => parseLlmFallbacks('llm_vendor_1=llm_vendor_9')).toThrow(
      /invalid LLM fallback "llm_vendor_1=llm_vendor_9"/,
    );
    expect(() => parseLlmFallbacks('llm_vendor_1=llm_vendor_1')).toThrow(/invalid/);
    expect(() => parseLlmFallbacks('llm_vendor_1')).toThrow(/invalid/);
  });
});
