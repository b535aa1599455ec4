// The editor's graph logic: the API graph ↔ canvas conversion (round trips keep what they do not
// understand), handle naming (default handles, config-named exits), the node catalog against the
// engine's own node specs, findings from a refused publish, and the diff of two versions.
import { describe, expect, it } from 'vitest';
import { NODE_SPECS } from '../../../../../src/workflow/node-specs';
import { NODE_TYPES as ENGINE_TYPES } from '../../../../../src/workflow/graph.types';
import { diffGraphs, isEmptyDiff, stableJson } from './diff';
import { fieldUnder, findingsFromErrors, messagesFor } from './findings';
import { dropExits, freshNodeId, linkEdge, newStepNode, toFlow, toGraph, type Graph } from './graph';
import { NODE_KINDS, NODE_TYPES, nodeHandles, resolveHandle } from './node-catalog';

const PIN: Graph = {
  inputs: ['caller_name'],
  nodes: [
    { id: 'start', type: 'start', config: {}, position: { x: 0, y: 0 } },
    {
      id: 'ask',
      type: 'dtmf',
      config: { prompt: 'PIN?', num_digits: 4, save_to_variable: 'pin' },
      position: { x: 0, y: 150 },
      note: 'kept',
    },
    {
      id: 'route',
      type: 'condition',
      config: { branches: [{ handle: 'vip', expression: 'pin == "1234"' }] },
    },
    { id: 'bye', type: 'end' },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'bye', label: 'kept too' },
    { source: 'route', source_handle: 'vip', target: 'bye' },
    { source: 'route', source_handle: 'default', target: 'bye' },
  ],
};

describe('node catalog', () => {
  it('lists the engine’s 13 node types with the same labels, exits and default exit', () => {
    expect([...NODE_TYPES]).toEqual([...ENGINE_TYPES]);
    for (const type of NODE_TYPES) {
      const engine = NODE_SPECS[type];
      expect(NODE_KINDS[type].label, type).toBe(engine.label);
      expect([...NODE_KINDS[type].handles], type).toEqual([...engine.handles]);
      expect(NODE_KINDS[type].defaultHandle, type).toBe(engine.defaultHandle);
      expect(NODE_KINDS[type].configHandles, type).toBe(engine.configHandles);
    }
  });

  it('names exits from config: condition branches and agent exits (objects or bare names)', () => {
    expect(nodeHandles('condition', { branches: [{ handle: 'vip' }, { handle: '' }, 'x'] })).toEqual([
      'default',
      'vip',
    ]);
    expect(nodeHandles('agent', { exits: ['billing', { handle: 'sales' }] })).toEqual([
      'default',
      'billing',
      'sales',
    ]);
    expect(resolveHandle('dtmf', {}, undefined)).toBe('success');
    expect(resolveHandle('speak', {}, 'default')).toBe('default');
    expect(resolveHandle('dtmf', {}, 'nope')).toBeNull();
    expect(nodeHandles('end', {})).toEqual([]);
  });
});

describe('graph ↔ flow', () => {
  it('maps edges onto named handles, an absent source_handle onto the default exit', () => {
    const { nodes, edges } = toFlow(PIN);
    expect(nodes.map((n) => n.id)).toEqual(['start', 'ask', 'route', 'bye']);
    expect(nodes[1]!.position).toEqual({ x: 0, y: 150 });
    expect(nodes[2]!.position).toEqual({ x: 80, y: 340 }); // no position: laid out in a column
    expect(edges.map((e) => [e.id, e.sourceHandle, e.targetHandle])).toEqual([
      ['start:default->ask', 'default', 'in'],
      ['ask:success->route', 'success', 'in'],
      ['ask:timeout->bye', 'timeout', 'in'],
      ['route:vip->bye', 'vip', 'in'],
      ['route:default->bye', 'default', 'in'],
    ]);
  });

  it('round-trips a graph unchanged: unknown keys, absent handles and envelope keys survive', () => {
    const { nodes, edges } = toFlow(PIN);
    const back = toGraph(nodes, edges, PIN);
    expect(back.inputs).toEqual(['caller_name']);
    expect(back.edges).toEqual(PIN.edges);
    expect(back.nodes[1]).toEqual(PIN.nodes[1]);
    // Positions are written for every node once the editor has laid them out.
    expect(back.nodes[3]).toEqual({ id: 'bye', type: 'end', position: { x: 80, y: 480 } });
  });

  it('writes new edges with the default handle implicit and named exits explicit', () => {
    expect(linkEdge('start', 'default', 'ask').data!.edge).toEqual({ source: 'start', target: 'ask' });
    expect(linkEdge('ask', 'timeout', 'bye').data!.edge).toEqual({
      source: 'ask',
      target: 'bye',
      source_handle: 'timeout',
    });
    const { nodes } = toFlow(PIN);
    const graph = toGraph(
      [...nodes, newStepNode('speak', 'speak', { x: 10.4, y: 20.6 })],
      [linkEdge('ask', 'success', 'speak')],
    );
    expect(graph.nodes.at(-1)).toEqual({
      id: 'speak',
      type: 'speak',
      config: { text: '' },
      position: { x: 10, y: 21 },
    });
    expect(graph.edges).toEqual([{ source: 'ask', source_handle: 'success', target: 'speak' }]);
  });

  it('keeps duplicate edges apart (a finding, not something to lose)', () => {
    const { edges } = toFlow({
      nodes: PIN.nodes,
      edges: [PIN.edges[0]!, { source: 'start', target: 'ask' }],
    });
    expect(edges.map((e) => e.id)).toEqual(['start:default->ask', 'start:default->ask#2']);
  });

  it('numbers new ids and drops edges of exits a config no longer names', () => {
    expect(freshNodeId('speak', ['start'])).toBe('speak');
    expect(freshNodeId('speak', ['speak', 'speak_2'])).toBe('speak_3');
    const { edges } = toFlow(PIN);
    const kept = dropExits(edges, 'route', ['default', 'vip'], ['default']);
    expect(kept.map((e) => e.id)).not.toContain('route:vip->bye');
    expect(kept).toHaveLength(4);
  });
});

describe('findings', () => {
  it('splits a refused publish’s errors at the longest node id', () => {
    const errors = { 'ask.save_to_variable': ['required'], 'ask.v2.text': ['empty'], graph: ['no start'] };
    expect(findingsFromErrors(errors, ['ask', 'ask.v2'])).toEqual([
      { node_id: 'ask', field: 'save_to_variable', message: 'required' },
      { node_id: 'ask.v2', field: 'text', message: 'empty' },
      { node_id: '', field: '', message: 'no start' },
    ]);
  });

  it('matches a field and the paths below it', () => {
    expect(fieldUnder('exits[1].handle', 'exits')).toBe(true);
    expect(fieldUnder('exits[1].handle', 'exits[1]')).toBe(true);
    expect(fieldUnder('exits_x', 'exits')).toBe(false);
    const f = [{ node_id: 'a', field: 'variables.vip', message: 'bad' }];
    expect(messagesFor(f, 'a', 'variables')).toEqual(['bad']);
    expect(messagesFor(f, 'b', 'variables')).toEqual([]);
  });

  it('drops the field’s own name from a message shown beside it, and keeps a sub-field’s', () => {
    const f = [
      {
        node_id: 'w',
        field: 'timeout_seconds',
        message: '`timeout_seconds` must be a positive number of seconds.',
      },
      { node_id: 'w', field: 'url', message: '`url` is required (the URL to call).' },
      { node_id: 'w', field: 'auth.type', message: "`auth.type` must be 'none', 'bearer' or 'hmac'." },
      { node_id: 'w', field: 'auth.secret_variable', message: '`secret_variable` must name the variable.' },
      { node_id: 'w', field: 'headers.X-Bad', message: 'A header value must be a string (template).' },
      { node_id: 'w', field: 'method', message: 'method must be one of GET, POST.' },
      { node_id: 'w', field: 'body', message: '`bodyguard` is not this field.' },
    ];
    expect(messagesFor(f, 'w', 'timeout_seconds')).toEqual(['Must be a positive number of seconds.']);
    expect(messagesFor(f, 'w', 'url')).toEqual(['Required (the URL to call).']);
    expect(messagesFor(f, 'w', 'auth.type')).toEqual(["Must be 'none', 'bearer' or 'hmac'."]);
    expect(messagesFor(f, 'w', 'auth.secret_variable')).toEqual(['Must name the variable.']);
    expect(messagesFor(f, 'w', 'method')).toEqual(['Must be one of GET, POST.']);
    expect(messagesFor(f, 'w', 'body')).toEqual(['`bodyguard` is not this field.']);
    // Beside the group, a sub-field's message keeps the name that says which part is meant.
    expect(messagesFor(f, 'w', 'auth')).toEqual([
      "`auth.type` must be 'none', 'bearer' or 'hmac'.",
      '`secret_variable` must name the variable.',
    ]);
    expect(messagesFor(f, 'w', 'headers')).toEqual(['A header value must be a string (template).']);
  });
});

describe('diff', () => {
  it('reports steps added, removed and changed, and connections, apart from moves', () => {
    const after: Graph = {
      nodes: [
        { ...PIN.nodes[0]!, position: { x: 5, y: 5 } },
        { ...PIN.nodes[1]!, config: { prompt: 'PIN please', num_digits: 4, save_to_variable: 'pin' } },
        PIN.nodes[3]!,
        { id: 'hello', type: 'speak', config: { text: 'Hi' } },
      ],
      edges: [
        { source: 'start', target: 'hello', source_handle: 'default' },
        { source: 'hello', target: 'ask' },
        PIN.edges[2]!,
      ],
    };
    const d = diffGraphs(PIN, after);
    expect(d.addedNodes.map((n) => n.id)).toEqual(['hello']);
    expect(d.removedNodes.map((n) => n.id)).toEqual(['route']);
    expect(d.changedNodes).toEqual([{ id: 'ask', type: 'dtmf', keys: ['prompt'] }]);
    expect(d.movedNodes).toEqual(['start']);
    expect(d.addedEdges).toEqual(['start —default→ hello', 'hello —default→ ask']);
    expect(d.removedEdges).toEqual([
      'start —default→ ask',
      'ask —success→ route',
      'route —vip→ bye',
      'route —default→ bye',
    ]);
  });

  it('reads `default` and an absent handle, and reordered keys, as no change', () => {
    const a: Graph = {
      nodes: [{ id: 's', type: 'speak', config: { text: 'x', barge_in: true } }],
      edges: [],
    };
    const b: Graph = {
      nodes: [{ id: 's', type: 'speak', config: { barge_in: true, text: 'x' } }],
      edges: [],
    };
    expect(isEmptyDiff(diffGraphs(a, b))).toBe(true);
    expect(stableJson({ b: 1, a: [2, { d: 1, c: 0 }] })).toBe('{"a":[2,{"c":0,"d":1}],"b":1}');
    const withDefault = { ...PIN, edges: [{ source: 'start', target: 'ask', source_handle: 'default' }] };
    expect(diffGraphs({ ...PIN, edges: [PIN.edges[0]!] }, withDefault).addedEdges).toEqual([]);
  });
});
