import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import type { LlmStreamEvent } from './llm.types.js';
import { GeminiProvider } from './vendor-3-gemini.js';

let server: FakeLlmServer;
let provider: GeminiProvider;

beforeEach(async () => {
  server = await startFakeLlmServer('gemini');
  provider = new GeminiProvider({ apiKey: 'g-test', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
});
afterEach(async () => {
  await provider.close();
  await server.close();
});

const book = {
  name: 'book_slot',
  description: 'Book an appointment',
  parameters: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { day: { type: 'string' }, hour: { type: 'integer' } },
    required: ['day'],
    additionalProperties: false,
  },
};

describe('llm_vendor_3 (Gemini streamGenerateContent)', () => {
  it('streams text from CRLF-separated events and reads usageMetadata', async () => {
    server.reply(
      { text: ['Sure', ', Tuesday works.'], usage: { input: 30, output: 6 } },
      { splitFrames: true },
    );
    const events = await collect(
      provider.stream({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Tuesday?' }] }),
    );
    expect(events).toEqual([
      { type: 'text', delta: 'Sure' },
      { type: 'text', delta: ', Tuesday works.' },
      {
        type: 'done',
        usage: { inputTokens: 30, outputTokens: 6 },
        finishReason: 'stop',
        model: 'fake-model',
      },
    ]);
  });

  it('posts to models/{model}:streamGenerateContent?alt=sse with systemInstruction, contents and functionDeclarations', async () => {
    server.reply({ text: ['ok'] });
    await collect(
      provider.stream({
        model: 'models/gemini-2.5-flash',
        temperature: 0.5,
        maxTokens: 300,
        tools: [book],
        messages: [
          { role: 'system', content: 'You book appointments.' },
          { role: 'user', content: 'Book Tuesday at 10' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'c1', name: 'book_slot', arguments: '{"day":"Tue","hour":10}' }],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"confirmed":true}' },
          { role: 'tool', tool_call_id: 'c1', content: 'plain text result' },
        ],
      }),
    );
    const [req] = server.requests;
    expect(req!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(req!.headers['x-goog-api-key']).toBe('g-test');
    expect(req!.body).toEqual({
      systemInstruction: { parts: [{ text: 'You book appointments.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Book Tuesday at 10' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'book_slot', args: { day: 'Tue', hour: 10 }, id: 'c1' } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'book_slot', response: { confirmed: true }, id: 'c1' } },
            { functionResponse: { name: 'book_slot', response: { result: 'plain text result' }, id: 'c1' } },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'book_slot', description: 'Book an appointment', parametersJsonSchema: book.parameters },
          ],
        },
      ],
      generationConfig: { temperature: 0.5, maxOutputTokens: 300 },
    });
  });

  it('opens with a neutral user turn when the conversation starts with the model or is empty', async () => {
    server.reply({ text: ['a'] });
    server.reply({ text: ['b'] });
    await collect(provider.stream({ model: 'g', messages: [{ role: 'system', content: 'Greet.' }] }));
    await collect(
      provider.stream({
        model: 'g',
        messages: [
          { role: 'assistant', content: 'Hi, this is the clinic.' },
          { role: 'user', content: 'Hello' },
        ],
      }),
    );
    const opener = { role: 'user', parts: [{ text: '(conversation start)' }] };
    expect((server.requests[0]!.body as { contents: unknown[] }).contents).toEqual([opener]);
    expect((server.requests[1]!.body as { contents: unknown[] }).contents).toEqual([
      opener,
      { role: 'model', parts: [{ text: 'Hi, this is the clinic.' }] },
      { role: 'user', parts: [{ text: 'Hello' }] },
    ]);
  });

  it('emits function calls with generated ids and finishes with tool_calls', async () => {
    server.reply({
      toolCalls: [
        { id: 'ignored', name: 'book_slot', arguments: '{"day":"Mon"}' },
        { id: 'ignored', name: 'book_slot', arguments: '{"day":"Wed","hour":9}' },
      ],
      usage: { input: 10, output: 8 },
    });
    const events = await collect(
      provider.stream({ model: 'g', messages: [{ role: 'user', content: 'x' }], tools: [book] }),
    );
    const calls = events.filter(
      (e): e is Extract<LlmStreamEvent, { type: 'tool_call' }> => e.type === 'tool_call',
    );
    expect(calls.map((c) => [c.call.name, c.call.arguments])).toEqual([
      ['book_slot', '{"day":"Mon"}'],
      ['book_slot', '{"day":"Wed","hour":9}'],
    ]);
    expect(calls[0]!.call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[0]!.call.id).not.toBe(calls[1]!.call.id);
    expect(events.at(-1)).toEqual({
      type: 'done',
      usage: { inputTokens: 10, outputTokens: 8 },
      finishReason: 'tool_calls',
      model: 'fake-model',
    });
  });

  it('sends a thought signature back with the function call it came with', async () => {
    const frame = (d: unknown) => `data: ${JSON.stringify(d)}\r\n\r\n`;
    server.replyRaw({
      kind: 'stream',
      frames: [
        frame({
          candidates: [
            {
              content: {
                role: 'model',
                parts: [
                  { functionCall: { name: 'book_slot', args: { day: 'Fri' } }, thoughtSignature: 'sig-abc' },
                ],
              },
              finishReason: 'STOP',
            },
          ],
        }),
      ],
    });
    const first = await collect(
      provider.stream({ model: 'g', messages: [{ role: 'user', content: 'Friday' }], tools: [book] }),
    );
    const call = first.find((e) => e.type === 'tool_call');
    if (call?.type !== 'tool_call') throw new Error('no tool call');
    server.reply({ text: ['Booked.'] });
    await collect(
      provider.stream({
        model: 'g',
        tools: [book],
        messages: [
          { role: 'user', content: 'Friday' },
          { role: 'assistant', content: '', tool_calls: [call.call] },
          { role: 'tool', tool_call_id: call.call.id, content: 'ok' },
        ],
      }),
    );
    const body = server.requests[1]!.body as { contents: { parts: Record<string, unknown>[] }[] };
    expect(body.contents[1]!.parts[0]).toEqual({
      functionCall: { name: 'book_slot', args: { day: 'Fri' }, id: call.call.id },
      thoughtSignature: 'sig-abc',
    });
  });

  it('maps a safety stop to content_filter and skips thought parts', async () => {
    const frame = (d: unknown) => `data: ${JSON.stringify(d)}\r\n\r\n`;
    server.replyRaw({
      kind: 'stream',
      frames: [
        frame({
          candidates: [
            { content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'I' }] } },
          ],
        }),
        frame({
          candidates: [{ finishReason: 'SAFETY' }],
          usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, thoughtsTokenCount: 5 },
        }),
      ],
    });
    const events = await collect(provider.stream({ model: 'g', messages: [{ role: 'user', content: 'x' }] }));
    expect(events).toEqual([
      { type: 'text', delta: 'I' },
      { type: 'done', usage: { inputTokens: 4, outputTokens: 6 }, finishReason: 'content_filter' },
    ]);
  });

  it('reports a Google error body with its status', async () => {
    server.replyRaw({
      kind: 'error',
      status: 403,
      body: { error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } },
    });
    const err = await collect(provider.stream({ model: 'g', messages: [] })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LlmError', status: 403, retryable: false });
    expect((err as Error).message).toContain('API key not valid.');
  });
});
