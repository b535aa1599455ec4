// One conversation through every adapter: whatever the wire protocol, the engine must see the
// same contract events for the same scripted answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
  type FakeTurn,
  type FakeVendor,
} from '../../../test/support/fake-llm-servers/index.js';
import { createLlmRegistry, LLM_PROVIDER_IDS, type LlmProviderId, type LlmRegistry } from './registry.js';

const VENDOR_OF: Record<LlmProviderId, FakeVendor> = {
  llm_vendor_1: 'openai',
  llm_vendor_2: 'anthropic',
  llm_vendor_3: 'gemini',
  llm_vendor_4: 'router',
};

const turn: FakeTurn = {
  text: ['Your order ', 'ships ', 'today.'],
  toolCalls: [
    { id: 'call_7', name: 'lookup_order', arguments: '{"order_id":"A-7","include":["eta"]}', pieces: 4 },
  ],
  usage: { input: 120, output: 17 },
};

let servers: Record<string, FakeLlmServer>;
let registry: LlmRegistry;

beforeAll(async () => {
  servers = {};
  const providers: Record<string, { apiKey: string; baseUrl: string }> = {};
  for (const id of LLM_PROVIDER_IDS) {
    servers[id] = await startFakeLlmServer(VENDOR_OF[id]);
    providers[id] = { apiKey: `key-${id}`, baseUrl: servers[id].baseUrl };
  }
  registry = createLlmRegistry({ providers });
});
afterAll(async () => {
  await registry.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

describe.each(LLM_PROVIDER_IDS)('%s', (id) => {
  it('streams the same contract events for the same answer', async () => {
    servers[id]!.reply(turn, { splitFrames: true });
    const events = await collect(
      registry.get(id).stream({
        model: 'any-model',
        messages: [
          { role: 'system', content: 'You are a shop assistant.' },
          { role: 'user', content: 'Where is my order?' },
        ],
        tools: [{ name: 'lookup_order', description: 'Find an order', parameters: { type: 'object' } }],
      }),
    );
    const text = events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
    expect(text).toBe('Your order ships today.');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('lookup_order');
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ order_id: 'A-7', include: ['eta'] });
    expect(events.at(-1)).toEqual({
      type: 'done',
      usage: { inputTokens: 120, outputTokens: 17 },
      finishReason: 'tool_calls',
      model: 'fake-model',
    });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
  });
});
