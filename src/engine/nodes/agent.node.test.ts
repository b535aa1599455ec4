import { describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../../providers/llm/scripted.js';
import { FakeClock } from '../../shared/clock.js';
import type { FetchLike } from '../node-types.js';
import { nodeHarness, settle, testAgent } from '../../../test/support/engine-harness.js';
import { agentNode } from './agent.node.js';

function setup(
  options: {
    replies?: ConstructorParameters<typeof ScriptedLlm>[0]['replies'];
    fetch?: FetchLike;
    firstTokenMs?: number;
    agent?: Parameters<typeof testAgent>[0];
  } = {},
) {
  const clock = new FakeClock();
  const llm = new ScriptedLlm({
    clock,
    replies: options.replies ?? [],
    firstTokenMs: options.firstTokenMs ?? 0,
  });
  const h = nodeHarness({
    clock,
    llm: { fake: llm },
    agents: [testAgent(options.agent)],
    variables: { caller_name: 'Ada' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { h, llm };
}

const config = {
  agent_id: 'agent-1',
  exits: [{ handle: 'billing', description: 'the caller asks about a bill' }],
  outputs: [{ variable: 'account', description: 'account number' }],
};

describe('agent', () => {
  it('greets, converses and leaves by the exit tool the model calls, saving outputs', async () => {
    const { h, llm } = setup({
      agent: { greeting: 'Hi {{caller_name}}!' },
      replies: [
        { text: 'Sure, what is it about?' },
        { text: 'Let me connect you.', toolCalls: [{ name: 'billing', arguments: { account: '42' } }] },
      ],
    });
    h.channel.pushText('I have a question');
    h.channel.pushText('My bill');
    const out = await agentNode.run(h.ctx, config, h.signal);
    expect(out).toEqual({ handle: 'billing', outputs: { account: '42' } });
    expect(h.of('message').map((m) => [m.role, m.content, m.agent_name])).toEqual([
      ['assistant', 'Hi Ada!', 'Ada'],
      ['user', 'I have a question', undefined],
      ['assistant', 'Sure, what is it about?', 'Ada'],
      ['user', 'My bill', undefined],
      ['assistant', 'Let me connect you.', 'Ada'],
    ]);
    const req = llm.requests[1]!;
    expect(req.messages[0]).toEqual({ role: 'system', content: 'You are a helpful receptionist.' });
    expect(req.messages.slice(1).map((m) => m.content)).toEqual([
      'Hi Ada!',
      'I have a question',
      'Sure, what is it about?',
      'My bill',
    ]);
    expect(req.temperature).toBe(0.2);
    expect(req.tools).toEqual([
      expect.objectContaining({
        name: 'billing',
        description: 'the caller asks about a bill',
        parameters: {
          type: 'object',
          properties: { account: { type: 'string', description: 'account number' } },
        },
      }),
    ]);
    expect(h.of('usage')).toHaveLength(2);
    expect(h.of('usage')[0]).toMatchObject({ provider: 'fake', llm_output_tokens: 6 });
  });

  it('answers its own tools: webhook url called, others get an error result', async () => {
    const calls: string[] = [];
    const fetch: FetchLike = async (url, init) => {
      calls.push(`${init.method} ${url} ${init.body}`);
      return { status: 200, headers: { get: () => null }, text: async () => '{"balance":12}' };
    };
    const { h, llm } = setup({
      fetch,
      agent: {
        tools: [
          { name: 'balance', description: 'balance', url: 'https://crm.example.com/balance' },
          { name: 'kb', description: 'knowledge base' },
        ],
      },
      replies: [
        { toolCalls: [{ name: 'balance', arguments: { id: 1 } }, { name: 'kb' }] },
        { text: 'You owe 12.' },
      ],
    });
    h.channel.pushText('balance?');
    h.channel.closeInput();
    const out = await agentNode.run(h.ctx, { agent_id: 'agent-1' }, h.signal);
    expect(out.handle).toBe('default');
    expect(calls).toEqual(['POST https://crm.example.com/balance {"id":1}']);
    const toolMsgs = llm.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(toolMsgs.map((m) => m.content)).toEqual([
      '{"balance":12}',
      expect.stringContaining('cannot be called'),
    ]);
    expect(h.of('message').filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('measures latency from the end of the user turn to the first token', async () => {
    const { h } = setup({ firstTokenMs: 300, replies: [{ text: 'Hello there.' }] });
    const run = agentNode.run(h.ctx, { ...config, max_turns: 1 }, h.signal);
    await settle();
    h.channel.pushText('hi');
    await settle();
    h.clock.advance(300);
    expect(await run).toEqual({ handle: 'default' });
    const reply = h.of('message').find((m) => m.role === 'assistant')!;
    expect(reply.latency_ms).toBe(300);
  });

  it('leaves by default on silence, and aborts mid-generation', async () => {
    const { h } = setup({ firstTokenMs: 1000, replies: [{ text: 'x' }] });
    const run = agentNode.run(h.ctx, { ...config, silence_timeout_seconds: 5 }, h.signal);
    await settle();
    h.clock.advance(5000);
    expect(await run).toEqual({ handle: 'default' });

    const run2 = agentNode.run(h.ctx, config, h.signal);
    h.channel.pushText('hello');
    await settle();
    h.abort(new Error('force_ended'));
    await expect(run2).rejects.toThrow('force_ended');
  });

  it('history reset starts afresh; instructions join the system prompt', async () => {
    const { h, llm } = setup({ replies: [{ text: 'ok' }] });
    h.ctx.conversation.push({ role: 'user', content: 'earlier' });
    h.channel.pushText('now');
    await agentNode.run(
      h.ctx,
      { ...config, history: 'reset', instructions: 'Ask for {{caller_name}}.', max_turns: 1 },
      h.signal,
    );
    expect(llm.requests[0]!.messages.map((m) => m.content)).toEqual([
      'You are a helpful receptionist.\n\nAsk for Ada.',
      'now',
    ]);
  });

  it('fails with agent_not_found for an unknown agent', async () => {
    const { h } = setup();
    await expect(agentNode.run(h.ctx, { agent_id: 'nope' }, h.signal)).rejects.toMatchObject({
      code: 'agent_not_found',
    });
  });
});

describe('agent transcript timing', () => {
  it('stamps a user message with the end of the turn, not when the node read it', async () => {
    const { h } = setup({ replies: [{ text: 'ok' }] });
    h.clock.advance(1000);
    h.channel.pushText('early');
    h.clock.advance(4000);
    await agentNode.run(h.ctx, { agent_id: 'agent-1', max_turns: 1 }, h.signal);
    const user = h.of('message').find((m) => m.role === 'user')!;
    expect(user.at - h.clock.now()).toBe(-4000);
  });
});
