import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import { LlmError } from './llm.types.js';
import { AnthropicMessagesProvider, ANTHROPIC_VERSION } from './vendor-2-anthropic.js';

let server: FakeLlmServer;
let provider: AnthropicMessagesProvider;
const sleeps: number[] = [];

beforeEach(async () => {
  sleeps.length = 0;
  server = await startFakeLlmServer('anthropic');
  provider = new AnthropicMessagesProvider({
    apiKey: 'ak-test',
    baseUrl: server.baseUrl,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
  });
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

const lookup = {
  name: 'lookup_order',
  description: 'Find an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, additionalProperties: false },
};

describe('llm_vendor_2 (Anthropic Messages)', () => {
  it('streams text and reads input tokens from message_start and output tokens from message_delta', async () => {
    server.reply({ text: ['Good ', 'morning'], usage: { input: 25, output: 4 } }, { splitFrames: true });
    const events = await collect(
      provider.stream({ model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'Good ' },
      { type: 'text', delta: 'morning' },
      {
        type: 'done',
        usage: { inputTokens: 25, outputTokens: 4 },
        finishReason: 'stop',
        model: 'fake-model',
      },
    ]);
  });

  it('sends the system prompt top-level, tools with input_schema, and tool results as tool_result blocks', async () => {
    server.reply({ text: ['ok'] });
    await collect(
      provider.stream({
        model: 'claude-x',
        temperature: 0.2,
        tools: [lookup],
        messages: [
          { role: 'system', content: 'You answer the phone.' },
          { role: 'assistant', content: 'Hello, how can I help?' },
          { role: 'user', content: 'Where are orders 1 and 2?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'toolu_1', name: 'lookup_order', arguments: '{"order_id":"1"}' },
              { id: 'toolu_2', name: 'lookup_order', arguments: '{"order_id":"2"}' },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'shipped' },
          { role: 'tool', tool_call_id: 'toolu_2', content: 'packing' },
        ],
      }),
    );
    const [req] = server.requests;
    expect(req!.url).toBe('/v1/messages');
    expect(req!.headers['x-api-key']).toBe('ak-test');
    expect(req!.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(req!.headers.authorization).toBeUndefined();
    expect(req!.body).toEqual({
      model: 'claude-x',
      max_tokens: 1024,
      stream: true,
      temperature: 0.2,
      system: 'You answer the phone.',
      tools: [{ name: 'lookup_order', description: 'Find an order', input_schema: lookup.parameters }],
      messages: [
        // The API refuses a conversation opening with the assistant's greeting.
        { role: 'user', content: [{ type: 'text', text: '(conversation start)' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello, how can I help?' }] },
        { role: 'user', content: [{ type: 'text', text: 'Where are orders 1 and 2?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup_order', input: { order_id: '1' } },
            { type: 'tool_use', id: 'toolu_2', name: 'lookup_order', input: { order_id: '2' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'shipped' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'packing' },
          ],
        },
      ],
    });
  });

  it('opens with a neutral user turn when there is only a system prompt', async () => {
    server.reply({ text: ['Hello!'] });
    await collect(
      provider.stream({ model: 'm', messages: [{ role: 'system', content: 'Greet the caller.' }] }),
    );
    expect(server.requests[0]!.body).toMatchObject({
      system: 'Greet the caller.',
      messages: [{ role: 'user', content: [{ type: 'text', text: '(conversation start)' }] }],
    });
  });

  it('assembles tool_use input from input_json_delta pieces', async () => {
    server.reply({
      text: ['One moment.'],
      toolCalls: [
        { id: 'toolu_9', name: 'lookup_order', arguments: '{"order_id":"A-1234","verbose":true}', pieces: 6 },
      ],
      usage: { input: 50, output: 30 },
    });
    const events = await collect(
      provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [lookup] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'One moment.' },
      {
        type: 'tool_call',
        call: { id: 'toolu_9', name: 'lookup_order', arguments: '{"order_id":"A-1234","verbose":true}' },
      },
      {
        type: 'done',
        usage: { inputTokens: 50, outputTokens: 30 },
        finishReason: 'tool_calls',
        model: 'fake-model',
      },
    ]);
  });

  it('retries an overloaded error sent inside the stream before any output', async () => {
    server.replyRaw({
      kind: 'stream',
      frames: [
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ],
    });
    server.reply({ text: ['back'] });
    const events = await collect(provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }));
    expect(events.map((e) => e.type)).toEqual(['text', 'done']);
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([125]);
  });

  it('gives up on a 529 after the configured retries with the last status', async () => {
    for (let i = 0; i < 3; i++) {
      server.replyRaw({
        kind: 'error',
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      });
    }
    const err = await collect(provider.stream({ model: 'm', messages: [] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ status: 529, retryable: true });
    expect((err as Error).message).toContain('Overloaded');
    expect(server.requests).toHaveLength(3);
  });

  it('fails when the stream ends before message_stop', async () => {
    server.reply({ text: ['half'], truncate: true }, {});
    const err = await collect(provider.stream({ model: 'm', messages: [] })).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/message_stop/);
  });
});
