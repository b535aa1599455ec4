import { describe, expect, it } from 'vitest';
import { simulate } from './simulate.js';
import { graph, testAgent } from '../../test/support/engine-harness.js';

describe('simulate', () => {
  it('returns status, path, redacted variables and messages; stubbed LLM serves any provider', async () => {
    const g = graph(
      [
        ['start', 'start'],
        ['bot', 'agent', { agent_id: 'agent-1', exits: [{ handle: 'done', description: 'finished' }] }],
        ['bye', 'end'],
      ],
      [
        ['start', 'bot'],
        ['bot', 'bye', 'done'],
        ['bot', 'bye'],
      ],
    );
    const result = await simulate({
      graph: g,
      variables: { secret_token: 'abc', name: 'Ada' },
      inputs: [{ text: 'bye' }],
      agents: [testAgent({ llm_provider: 'llm_vendor_2' })],
      stubs: { llm: [{ text: 'Goodbye!', toolCalls: [{ name: 'done' }] }] },
    });
    expect(result).toMatchObject({
      status: 'completed',
      path: ['start', 'bot', 'bye'],
      variables: { secret_token: '[redacted]', name: 'Ada', channel: 'test' },
      messages: [
        { role: 'user', content: 'bye' },
        { role: 'assistant', content: 'Goodbye!', agent_name: 'Ada', latency_ms: 0 },
      ],
    });
  });

  it('is deterministic: the same request gives the same result', async () => {
    const g = graph(
      [
        ['start', 'start'],
        ['ask', 'dtmf', { prompt: 'PIN', num_digits: 2, save_to_variable: 'pin' }],
        ['bye', 'end'],
      ],
      [
        ['start', 'ask'],
        ['ask', 'bye', 'success'],
        ['ask', 'bye', 'timeout'],
      ],
    );
    const a = await simulate({ graph: g, inputs: [{ dtmf: '4' }] });
    const b = await simulate({ graph: g, inputs: [{ dtmf: '4' }] });
    expect(a.status).toBe('completed');
    expect(a.variables.pin).toBe('4');
    expect(b).toEqual(a);
  });

  it("shows the keys pressed as the caller's turn, between the prompt and what follows", async () => {
    const g = graph(
      [
        ['start', 'start'],
        ['ask', 'dtmf', { prompt: 'PIN, then hash', save_to_variable: 'pin' }],
        ['ok', 'speak', { text: 'Got {{pin}}.' }],
        ['bye', 'end'],
      ],
      [
        ['start', 'ask'],
        ['ask', 'ok', 'success'],
        ['ok', 'bye'],
      ],
    );
    const result = await simulate({ graph: g, inputs: [{ dtmf: '12#' }] });
    expect(result.messages).toEqual([
      { role: 'assistant', content: 'PIN, then hash' },
      { role: 'user', content: 'Pressed 12#' },
      { role: 'assistant', content: 'Got 12.' },
    ]);
  });
});
