import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import { RouterChatProvider, parseModelList } from './vendor-4-router.js';

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer('router');
});
afterEach(async () => {
  await server.close();
});

describe('llm_vendor_4 (OpenAI-compatible router)', () => {
  it('streams through the shared Chat Completions decoder, ignoring the router keep-alive comments', async () => {
    const provider = new RouterChatProvider({ apiKey: 'or-test', baseUrl: server.baseUrl });
    server.reply({
      text: ['Routed'],
      toolCalls: [{ id: 'call_r', name: 'end_call', arguments: '{"reason":"done"}', pieces: 4 }],
      usage: { input: 9, output: 5 },
    });
    const events = await collect(
      provider.stream({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'Routed' },
      { type: 'tool_call', call: { id: 'call_r', name: 'end_call', arguments: '{"reason":"done"}' } },
      {
        type: 'done',
        usage: { inputTokens: 9, outputTokens: 5 },
        finishReason: 'tool_calls',
        model: 'fake-model',
      },
    ]);
    await provider.close();
  });

  it('sends vendor/model routing: the models fallback list, provider preferences, attribution headers', async () => {
    const provider = new RouterChatProvider({
      apiKey: 'or-test',
      baseUrl: `${server.baseUrl}/v1`,
      routing: {
        fallbackModels: ['meta-llama/llama-3.3-70b-instruct'],
        provider: { order: ['anthropic', 'amazon-bedrock'], allow_fallbacks: true, sort: 'latency' },
        appUrl: 'https://switchboard.example',
        appTitle: 'Switchboard',
      },
    });
    server.reply({ text: ['ok'] });
    await collect(
      provider.stream({
        model: 'anthropic/claude-3.5-haiku, openai/gpt-4o-mini',
        maxTokens: 150,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      }),
    );
    const [req] = server.requests;
    expect(req!.url).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe('Bearer or-test');
    expect(req!.headers['http-referer']).toBe('https://switchboard.example');
    expect(req!.headers['x-title']).toBe('Switchboard');
    expect(req!.body).toEqual({
      model: 'anthropic/claude-3.5-haiku',
      models: ['anthropic/claude-3.5-haiku', 'openai/gpt-4o-mini', 'meta-llama/llama-3.3-70b-instruct'],
      provider: { order: ['anthropic', 'amazon-bedrock'], allow_fallbacks: true, sort: 'latency' },
      max_tokens: 150,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    await provider.close();
  });

  it('sends a single model without a models list', async () => {
    const provider = new RouterChatProvider({ apiKey: 'k', baseUrl: server.baseUrl });
    server.reply({ text: ['ok'] });
    await collect(provider.stream({ model: 'google/gemini-2.5-flash', messages: [] }));
    const body = server.requests[0]!.body as Record<string, unknown>;
    expect(body.model).toBe('google/gemini-2.5-flash');
    expect(body).not.toHaveProperty('models');
    expect(body).not.toHaveProperty('provider');
    await provider.close();
  });

  it('tells whole tool calls apart by id when an upstream omits the index', async () => {
    const provider = new RouterChatProvider({ apiKey: 'k', baseUrl: server.baseUrl });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ model: 'up/model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.replyRaw({
      kind: 'stream',
      frames: [
        chunk({
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'one', arguments: '{"x":1}' } }],
        }),
        chunk({ tool_calls: [{ id: 'b', type: 'function', function: { name: 'two', arguments: '{"y":' } }] }),
        chunk({ tool_calls: [{ function: { arguments: '2}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const events = await collect(provider.stream({ model: 'up/model', messages: [] }));
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'a', name: 'one', arguments: '{"x":1}' } },
      { type: 'tool_call', call: { id: 'b', name: 'two', arguments: '{"y":2}' } },
    ]);
    await provider.close();
  });

  it('parses a comma-separated model chain', () => {
    expect(parseModelList(' a/b ,c/d,, e ')).toEqual(['a/b', 'c/d', 'e']);
  });
});
