import { describe, expect, it } from 'vitest';
import { collect } from '../../../test/support/fake-llm-servers/index.js';
import { FakeClock } from '../../shared/clock.js';
import { ScriptedLlmProvider } from './scripted.js';

describe('ScriptedLlmProvider', () => {
  it('answers each call with the next turn and records the requests', async () => {
    const llm = new ScriptedLlmProvider([
      { text: ['Hello', ' there'] },
      {
        toolCalls: [{ id: 't1', name: 'transfer', arguments: '{}' }],
        usage: { inputTokens: 5, outputTokens: 1 },
      },
    ]);
    expect(await collect(llm.stream({ model: 'x', messages: [] }))).toEqual([
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ' there' },
      { type: 'done', usage: { inputTokens: 0, outputTokens: 2 }, finishReason: 'stop' },
    ]);
    expect(await collect(llm.stream({ model: 'y', messages: [] }))).toEqual([
      { type: 'tool_call', call: { id: 't1', name: 'transfer', arguments: '{}' } },
      { type: 'done', usage: { inputTokens: 5, outputTokens: 1 }, finishReason: 'tool_calls' },
    ]);
    expect(llm.requests.map((r) => r.model)).toEqual(['x', 'y']);
    await expect(collect(llm.stream({ model: 'z', messages: [] }))).rejects.toThrow(/no scripted turn 3/);
  });

  it('waits the time to first token on the injected clock', async () => {
    const clock = new FakeClock();
    const llm = new ScriptedLlmProvider(() => ({ text: 'late' }), { clock, timeToFirstTokenMs: 300 });
    const it = llm.stream({ model: 'x', messages: [] })[Symbol.asyncIterator]();
    const first = it.next();
    await clock.advanceAsync(299);
    expect(clock.pending()).toBe(1);
    await clock.advanceAsync(1);
    expect((await first).value).toEqual({ type: 'text', delta: 'late' });
  });
});
