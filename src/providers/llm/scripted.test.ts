import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { LlmStreamEvent } from './llm.types.js';
import { ScriptedLlm } from './scripted.js';

async function collect(it: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('ScriptedLlm', () => {
  it('answers scripted replies in order, records requests, then falls back', async () => {
    const clock = new FakeClock();
    const llm = new ScriptedLlm({
      clock,
      replies: [{ text: 'Hello there' }, { toolCalls: [{ name: 'exit', arguments: { a: 1 } }] }],
    });
    const req = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
    const first = await collect(llm.stream(req));
    expect(
      first
        .filter((e) => e.type === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Hello there');
    expect(first.at(-1)).toEqual({
      type: 'done',
      usage: { inputTokens: 1, outputTokens: 3 },
      finishReason: 'stop',
    });
    const second = await collect(llm.stream(req));
    expect(second[0]).toEqual({
      type: 'tool_call',
      call: { id: 'call_1_0', name: 'exit', arguments: '{"a":1}' },
    });
    expect(await collect(llm.stream(req))).toHaveLength(1);
    expect(llm.requests).toHaveLength(3);
  });

  it('waits firstTokenMs on the clock and honours abort', async () => {
    const clock = new FakeClock();
    const llm = new ScriptedLlm({ clock, replies: [{ text: 'x' }, { text: 'y' }], firstTokenMs: 200 });
    const done = collect(llm.stream({ model: 'm', messages: [] }));
    await clock.advanceAsync(199);
    let finished = false;
    void done.then(() => (finished = true));
    await clock.advanceAsync(0);
    expect(finished).toBe(false);
    await clock.advanceAsync(1);
    expect((await done)[0]).toEqual({ type: 'text', delta: 'x' });
    const c = new AbortController();
    const aborted = collect(llm.stream({ model: 'm', messages: [], signal: c.signal }));
    c.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
  });

  it('throws an LlmError for a scripted error', async () => {
    const llm = new ScriptedLlm({ clock: new FakeClock(), replies: [{ error: 'overloaded' }] });
    await expect(collect(llm.stream({ model: 'm', messages: [] }))).rejects.toMatchObject({
      name: 'LlmError',
      provider: 'fake',
    });
  });
});
