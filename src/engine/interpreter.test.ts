import { describe, expect, it } from 'vitest';
import { TextChannel } from '../channels/text-channel.js';
import { FakeClock } from '../shared/clock.js';
import { EventStream } from './events.js';
import { Execution, runWorkflow } from './interpreter.js';
import type { NodeDefinition } from './node-types.js';
import { defaultRegistry } from './nodes/index.js';
import { graph, settle } from '../../test/support/engine-harness.js';

function setup(maxExecutionMs?: number) {
  const clock = new FakeClock();
  const channel = new TextChannel({ clock });
  const events = new EventStream(() => clock.now(), true);
  return { clock, channel, events, maxExecutionMs };
}

describe('interpreter', () => {
  it('follows edges by handle; an edge without source_handle is default', async () => {
    const s = setup();
    const g = graph(
      [
        ['start', 'start'],
        ['set', 'set_variables', { variables: { tier: 'gold' } }],
        ['check', 'condition', { branches: [{ handle: 'vip', expression: "tier == 'gold'" }] }],
        ['plain', 'end'],
        ['vip', 'end'],
      ],
      [
        ['start', 'set'],
        ['set', 'check'],
        ['check', 'plain', 'default'],
        ['check', 'vip', 'vip'],
      ],
    );
    const result = await runWorkflow({ ...s, graph: g });
    expect(result.status).toBe('completed');
    expect(result.path).toEqual(['start', 'set', 'check', 'vip']);
    expect(s.events.events.map((e) => e.type)).toEqual([
      'execution.started',
      'node.entered',
      'node.exited',
      'node.entered',
      'variables.changed',
      'node.exited',
      'node.entered',
      'node.exited',
      'node.entered',
      'node.exited',
      'execution.completed',
    ]);
  });

  it('seeds variables: dispatch < session < system, and redacts secrets at the end', async () => {
    const s = setup();
    const g = graph(
      [
        ['start', 'start'],
        ['bye', 'end'],
      ],
      [['start', 'bye']],
    );
    const result = await runWorkflow({
      ...s,
      graph: g,
      seeds: {
        dispatch: { lang: 'en', channel: 'spoofed', team: 'a' },
        session: { team: 'b', secret_pin: '1234' },
        system: { channel: 'test', session_id: 's1' },
      },
    });
    expect(result.variables).toMatchObject({
      lang: 'en',
      team: 'b',
      channel: 'test',
      session_id: 's1',
      secret_pin: '[redacted]',
    });
    const done = s.events.events.at(-1)!;
    expect(done.type === 'execution.completed' && done.variables.secret_pin).toBe('[redacted]');
  });

  it('fails with the node error and the last node when a node throws', async () => {
    const s = setup();
    const boom: NodeDefinition = {
      type: 'speak',
      run: async () => {
        throw new Error('boom');
      },
    };
    const registry = new Map(defaultRegistry).set('speak', boom);
    const g = graph(
      [
        ['start', 'start'],
        ['say', 'speak', { text: 'x' }],
      ],
      [['start', 'say']],
    );
    const result = await runWorkflow({ ...s, graph: g, registry });
    expect(result).toMatchObject({
      status: 'failed',
      lastNodeId: 'say',
      error: { code: 'node_error', message: 'boom' },
    });
    expect(s.events.events.at(-1)).toMatchObject({ type: 'execution.failed', last_node_id: 'say' });
  });

  it('fails with no_edge when a handle has no edge', async () => {
    const s = setup();
    const g = graph([['start', 'start']], []);
    const result = await runWorkflow({ ...s, graph: g });
    expect(result.error?.code).toBe('no_edge');
  });

  it('stops a cycling graph at the step limit', async () => {
    const s = setup();
    const g = graph(
      [
        ['start', 'start'],
        ['a', 'set_variables', { variables: {} }],
      ],
      [
        ['start', 'a'],
        ['a', 'a'],
      ],
    );
    const result = await runWorkflow({ ...s, graph: g, maxSteps: 50 });
    expect(result.error?.code).toBe('step_limit_exceeded');
    expect(result.path).toHaveLength(50);
  });

  it('fails with max_duration_exceeded on the fake clock, aborting the waiting node', async () => {
    const s = setup(60_000);
    const g = graph(
      [
        ['start', 'start'],
        ['ask', 'dtmf', { save_to_variable: 'pin', timeout_seconds: 600 }],
        ['bye', 'end'],
      ],
      [
        ['start', 'ask'],
        ['ask', 'bye', 'success'],
        ['ask', 'bye', 'timeout'],
      ],
    );
    const run = runWorkflow({ ...s, graph: g });
    await settle();
    s.clock.advance(59_999);
    await settle();
    s.clock.advance(1);
    const result = await run;
    expect(result).toMatchObject({
      status: 'failed',
      lastNodeId: 'ask',
      error: { code: 'max_duration_exceeded' },
    });
  });

  it('cancel() aborts the running node and ends as cancelled', async () => {
    const s = setup();
    const g = graph(
      [
        ['start', 'start'],
        ['ask', 'dtmf', { save_to_variable: 'pin' }],
      ],
      [['start', 'ask']],
    );
    const execution = new Execution({ ...s, graph: g });
    const run = execution.run();
    await settle();
    expect(execution.currentNodeId).toBe('ask');
    execution.cancel('force_ended');
    const result = await run;
    expect(result).toMatchObject({ status: 'cancelled', cancelReason: 'force_ended' });
    expect(s.events.events.at(-1)).toMatchObject({ type: 'execution.cancelled', reason: 'force_ended' });
  });

  it('a transfer the channel cannot make leaves by failed when the graph wires it', async () => {
    const s = setup();
    s.channel = new TextChannel({ clock: s.clock, simulateTelephony: false });
    const g = graph(
      [
        ['start', 'start'],
        ['x', 'transfer_to_human', { destination: 'tel:+15551234567' }],
        ['sorry', 'speak', { text: 'Nobody can take this now ({{transfer_failure_reason}}).' }],
        ['bye', 'end'],
      ],
      [
        ['start', 'x'],
        ['x', 'sorry', 'failed'],
        ['sorry', 'bye'],
      ],
    );
    const result = await runWorkflow({ ...s, graph: g });
    expect(result.status).toBe('completed');
    expect(result.path).toEqual(['start', 'x', 'sorry', 'bye']);
    expect(result.variables.transfer_failure_reason).toBe('channel_unsupported');
  });

  it('refuses a node whose channel need is missing', async () => {
    const s = setup();
    s.channel = new TextChannel({ clock: s.clock, simulateTelephony: false });
    const g = graph(
      [
        ['start', 'start'],
        ['x', 'transfer_call', { destination: 'tel:+15551234567' }],
      ],
      [['start', 'x']],
    );
    const result = await runWorkflow({ ...s, graph: g });
    expect(result.error?.code).toBe('channel_unsupported');
  });

  it('ends as transferred after a successful transfer', async () => {
    const s = setup();
    const g = graph(
      [
        ['start', 'start'],
        ['x', 'transfer_call', { destination: 'sip:desk@example.com' }],
      ],
      [['start', 'x']],
    );
    const result = await runWorkflow({ ...s, graph: g });
    expect(result).toMatchObject({
      status: 'transferred',
      transfer: { destination: 'sip:desk@example.com', mode: 'blind' },
    });
  });
});
