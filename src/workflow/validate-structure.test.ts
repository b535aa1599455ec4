// Structure rules: one start, a way out of every non-final node, reachability, unused handles.
import { describe, expect, it } from 'vitest';
import { validateGraph } from './validate.js';

const start = { id: 'start', type: 'start', config: {} };
const bye = { id: 'bye', type: 'end', config: {} };
const say = (id: string) => ({ id, type: 'speak', config: { text: 'Hello' } });

describe('start node', () => {
  it('needs exactly one start', () => {
    expect(validateGraph({ nodes: [bye], edges: [] }, {}).errors).toEqual([
      { node_id: '', field: 'nodes', message: 'The workflow needs one `start` node.' },
    ]);
    //  start ──► bye ◄── start2
    const result = validateGraph(
      {
        nodes: [start, { id: 'start2', type: 'start', config: {} }, bye],
        edges: [
          { source: 'start', target: 'bye' },
          { source: 'start2', target: 'bye' },
        ],
      },
      {},
    );
    expect(result.errors).toEqual([
      {
        node_id: 'start2',
        field: 'type',
        message: "Only one `start` node is allowed; 'start' is already the start.",
      },
    ]);
    expect(result.warnings).toEqual([
      { node_id: 'start2', field: '', message: "No path from 'start' reaches this node." },
    ]);
  });
});

describe('ways out and reachability', () => {
  it('errors on a node with no way out and warns when unreachable', () => {
    //  start ──► hello ──► bye
    //  orphan   (no edges at all)
    const result = validateGraph(
      {
        nodes: [start, say('hello'), say('orphan'), bye],
        edges: [
          { source: 'start', target: 'hello' },
          { source: 'hello', target: 'bye' },
        ],
      },
      {},
    );
    expect(result).toEqual({
      valid: false,
      errors: [
        {
          node_id: 'orphan',
          field: '',
          message:
            'Node has no way out: connect at least one of its handles (default) or end the flow with an `end` or `hangup` node.',
        },
      ],
      warnings: [{ node_id: 'orphan', field: '', message: "No path from 'start' reaches this node." }],
    });
  });

  it('counts only valid edges as ways out, and requires the failed path of transfers', () => {
    //  start ──► xfer ──nope──► bye      (invalid handle: xfer has no way out)
    const result = validateGraph(
      {
        nodes: [
          start,
          { id: 'xfer', type: 'transfer_call', config: { destination: 'tel:+14155550100' } },
          bye,
        ],
        edges: [
          { source: 'start', target: 'xfer' },
          { source: 'xfer', source_handle: 'nope', target: 'bye' },
        ],
      },
      {},
    );
    expect(result.errors).toEqual([
      {
        node_id: 'xfer',
        field: 'edges[1].source_handle',
        message: "Node 'xfer' (transfer_call) has no handle 'nope'; its handles are: failed.",
      },
      {
        node_id: 'xfer',
        field: '',
        message:
          "Node has no way out: connect its 'failed' handle so a failed transfer can continue, or end the flow there.",
      },
    ]);
    expect(result.warnings).toEqual([
      { node_id: 'bye', field: '', message: "No path from 'start' reaches this node." },
    ]);
  });

  it('lets end and hangup stand without edges, and allows loops', () => {
    //  start ──► hello ──► again ──┐
    //              ▲               │ (loop back)
    //              └───────────────┘   again is a condition: `done` ──► hangup
    const result = validateGraph(
      {
        nodes: [
          start,
          say('hello'),
          { id: 'again', type: 'condition', config: { branches: [{ handle: 'done', expression: 'true' }] } },
          { id: 'hang', type: 'hangup', config: {} },
        ],
        edges: [
          { source: 'start', target: 'hello' },
          { source: 'hello', target: 'again' },
          { source: 'again', target: 'hello' },
          { source: 'again', source_handle: 'done', target: 'hang' },
        ],
      },
      {},
    );
    expect(result).toEqual({ valid: true, errors: [], warnings: [] });
  });
});

describe('paths that never finish', () => {
  it('warns for reachable nodes from which every path loops', () => {
    //  start ──► a ──► b ──┐
    //            ▲         │
    //            └─────────┘        (bye is unreachable)
    const result = validateGraph(
      {
        nodes: [start, say('a'), say('b'), bye],
        edges: [
          { source: 'start', target: 'a' },
          { source: 'a', target: 'b' },
          { source: 'b', target: 'a' },
        ],
      },
      {},
    );
    const loops =
      'Every path from this node loops without reaching an `end`, `hangup` or transfer node; only a hang-up or a limit ends the execution.';
    expect(result).toEqual({
      valid: true,
      errors: [],
      warnings: [
        { node_id: 'start', field: '', message: loops },
        { node_id: 'a', field: '', message: loops },
        { node_id: 'b', field: '', message: loops },
        { node_id: 'bye', field: '', message: "No path from 'start' reaches this node." },
      ],
    });
  });
});

describe('unused handles', () => {
  it('warns for each unconnected handle, naming config handles by their field', () => {
    //  start ──► ask ─success─► route ─vip──► bye
    //            (timeout unused)   (default, new unused)
    const result = validateGraph(
      {
        nodes: [
          start,
          { id: 'ask', type: 'dtmf', config: { save_to_variable: 'pin' } },
          {
            id: 'route',
            type: 'condition',
            config: {
              branches: [
                { handle: 'vip', expression: "pin == '1'" },
                { handle: 'new', expression: "pin == '2'" },
              ],
            },
          },
          bye,
        ],
        edges: [
          { source: 'start', target: 'ask' },
          { source: 'ask', target: 'route' },
          { source: 'route', source_handle: 'vip', target: 'bye' },
        ],
      },
      {},
    );
    expect(result).toEqual({
      valid: true,
      errors: [],
      warnings: [
        {
          node_id: 'ask',
          field: '',
          message: "Handle 'timeout' has no edge; an execution that leaves by it fails.",
        },
        {
          node_id: 'route',
          field: '',
          message: "Handle 'default' has no edge; an execution that leaves by it fails.",
        },
        {
          node_id: 'route',
          field: 'branches[1].handle',
          message: "Handle 'new' has no edge; an execution that leaves by it fails.",
        },
      ],
    });
  });

  it('warns for unused webhook, dial and agent exit handles', () => {
    const result = validateGraph(
      {
        nodes: [
          start,
          { id: 'hook', type: 'webhook', config: { url: 'https://example.com/x' } },
          { id: 'call', type: 'dial', config: { to: 'tel:+14155550100' } },
          {
            id: 'bot',
            type: 'agent',
            config: { agent_id: 'a1', exits: [{ handle: 'billing', description: 'billing' }, 'sales'] },
          },
          bye,
        ],
        edges: [
          { source: 'start', target: 'hook' },
          { source: 'hook', source_handle: 'error', target: 'call' },
          { source: 'call', source_handle: 'answered', target: 'bot' },
          { source: 'bot', target: 'bye' },
        ],
      },
      {},
    );
    expect(result.warnings).toEqual([
      {
        node_id: 'hook',
        field: '',
        message: "Handle 'success' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'call',
        field: '',
        message: "Handle 'no_answer' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'call',
        field: '',
        message: "Handle 'busy' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'call',
        field: '',
        message: "Handle 'failed' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'bot',
        field: 'exits[0].handle',
        message: "Handle 'billing' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'bot',
        field: 'exits[1]',
        message: "Handle 'sales' has no edge; an execution that leaves by it fails.",
      },
      {
        node_id: 'bot',
        field: 'exits[1]',
        message: 'No description: the model is told only the handle name of this exit.',
      },
    ]);
    expect(result.errors).toEqual([]);
  });
});
