import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import { LlmError, type LlmRequest } from './llm.types.js';
import { OpenAiChatProvider } from './vendor-1-openai.js';

let server: FakeLlmServer;
let provider: OpenAiChatProvider;

beforeEach(async () => {
  server = await startFakeLlmServer('openai');
  provider = new OpenAiChatProvider({ apiKey: 'sk-test', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('llm_vendor_1 (OpenAI Chat Completions)', () => {
  it('streams text deltas and reports usage and the finish reason', async () => {
    server.reply({ text: ['Hel', 'lo', ' there'], usage: { input: 12, output: 3 } }, { splitFrames: true });
    const events = await collect(
      provider.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
      { type: 'text', delta: ' there' },
      {
        type: 'done',
        usage: { inputTokens: 12, outputTokens: 3 },
        finishReason: 'stop',
        model: 'fake-model',
      },
    ]);
  });

  it('sends the Chat Completions request: path, bearer key, messages, tools, streaming usage', async () => {
    server.reply({ text: ['ok'] });
    const request: LlmRequest = {
      model: 'gpt-4o-mini',
      temperature: 0.3,
      maxTokens: 200,
      tools: [weather],
      messages: [
        { role: 'system', content: 'You are a receptionist.' },
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":3}' },
      ],
    };
    await collect(provider.stream(request));
    const [req] = server.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    expect(req!.body).toEqual({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_completion_tokens: 200,
      messages: [
        { role: 'system', content: 'You are a receptionist.' },
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":3}' },
      ],
      tools: [{ type: 'function', function: weather }],
    });
  });

  it('assembles tool calls whose arguments arrive in fragments, by index', async () => {
    server.reply({
      text: ['Let me check.'],
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}', pieces: 5 },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}', pieces: 3 },
      ],
      usage: { input: 40, output: 22 },
    });
    const events = await collect(
      provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [weather] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'Let me check.' },
      {
        type: 'tool_call',
        call: { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' },
      },
      { type: 'tool_call', call: { id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' } },
      {
        type: 'done',
        usage: { inputTokens: 40, outputTokens: 22 },
        finishReason: 'tool_calls',
        model: 'fake-model',
      },
    ]);
  });

  it('turns an error status into LlmError with the vendor message, without retrying a 400', async () => {
    server.replyRaw({
      kind: 'error',
      status: 400,
      body: { error: { message: 'Invalid model', type: 'invalid_request_error' } },
    });
    const err = await collect(provider.stream({ model: 'nope', messages: [] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ provider: 'llm_vendor_1', status: 400, retryable: false });
    expect((err as Error).message).toContain('Invalid model');
    expect(server.requests).toHaveLength(1);
  });

  it('fails when the stream ends before the completion finished', async () => {
    server.reply({ text: ['cut'], truncate: true });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const ev of provider.stream({ model: 'm', messages: [] })) seen.push(ev.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['text']);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as Error).message).toMatch(/ended before/);
  });

  it('reports an error object sent inside the stream', async () => {
    server.replyRaw({
      kind: 'stream',
      frames: ['data: {"error":{"message":"upstream overloaded","code":502}}\n\n'],
    });
    const err = await collect(provider.stream({ model: 'm', messages: [] })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LlmError', status: 502, retryable: true });
  });

  it('answers every call with the fake server default turn (the benchmark mode)', async () => {
    server.setDefault({ text: ['same'], usage: { input: 1, output: 1 } });
    for (let i = 0; i < 3; i++) {
      const events = await collect(provider.stream({ model: 'm', messages: [] }));
      expect(events[0]).toEqual({ type: 'text', delta: 'same' });
    }
    expect(server.requests).toHaveLength(3);
  });

  it('does not double a /v1 already in the configured base URL', async () => {
    const p = new OpenAiChatProvider({ apiKey: 'k', baseUrl: `${server.baseUrl}/v1/` });
    server.reply({ text: ['x'] });
    await collect(p.stream({ model: 'm', messages: [] }));
    expect(server.requests[0]!.url).toBe('/v1/chat/completions');
    expect(p.baseUrl).toBe(server.baseUrl);
    await p.close();
  });
});
