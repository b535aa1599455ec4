// Envelope and edge rules: the shape of the document, node ids and types, edges and handles.
import { describe, expect, it } from 'vitest';
import { validateGraph } from './validate.js';

const start = { id: 'start', type: 'start', config: {} };
const bye = { id: 'bye', type: 'end', config: {} };

describe('graph envelope', () => {
  it.each([null, 42, 'graph', [], true])('refuses a non-object graph %j', (graph) => {
    expect(validateGraph(graph, {})).toEqual({
      valid: false,
      errors: [
        {
          node_id: '',
          field: '',
          message: 'The graph must be a JSON object with `nodes` and `edges` arrays.',
        },
      ],
      warnings: [],
    });
  });

  it('refuses missing or non-array nodes and edges', () => {
    expect(validateGraph({ nodes: {}, inputs: 'x' }, {})).toEqual({
      valid: false,
      errors: [
        { node_id: '', field: 'nodes', message: '`nodes` must be an array.' },
        { node_id: '', field: 'edges', message: '`edges` must be an array.' },
        { node_id: '', field: 'inputs', message: '`inputs` must be an array of variable names.' },
      ],
      warnings: [],
    });
  });

  it('does not judge edges when there is no node list', () => {
    expect(validateGraph({ nodes: 'x', edges: [{ source: 'a', target: 'b' }] }, {})).toEqual({
      valid: false,
      errors: [{ node_id: '', field: 'nodes', message: '`nodes` must be an array.' }],
      warnings: [],
    });
  });

  it('checks inputs entries', () => {
    const result = validateGraph(
      { nodes: [start, bye], edges: [{ source: 'start', target: 'bye' }], inputs: ['ok', '9x', 3] },
      {},
    );
    expect(result.errors).toEqual([
      {
        node_id: '',
        field: 'inputs[1]',
        message: 'Must be a variable name (letters, digits and _, not starting with a digit).',
      },
      {
        node_id: '',
        field: 'inputs[2]',
        message: 'Must be a variable name (letters, digits and _, not starting with a digit).',
      },
    ]);
  });
});

describe('nodes', () => {
  it('refuses malformed nodes, missing ids, duplicate ids and unknown types', () => {
    //  start ──► bye        plus: a non-object, an id-less node, a second `bye`, a teleport node
    const result = validateGraph(
      {
        nodes: [
          start,
          'node',
          { type: 'speak', config: { text: 'x' } },
          bye,
          { id: 'bye', type: 'hangup', config: {} },
          { id: 'beam', type: 'teleport', config: {} },
          { id: 'nameless', config: {} },
          { id: 'cfg', type: 'end', config: [] },
        ],
        edges: [{ source: 'start', target: 'bye' }],
      },
      {},
    );
    expect(result.errors).toEqual([
      {
        node_id: '',
        field: 'nodes[1]',
        message: 'Each node must be an object with `id`, `type` and `config`.',
      },
      { node_id: '', field: 'nodes[2].id', message: 'Each node needs a non-empty string `id`.' },
      { node_id: 'bye', field: 'id', message: "Duplicate node id 'bye': nodes[3] has it too." },
      {
        node_id: 'beam',
        field: 'type',
        message:
          "Unknown node type 'teleport'; expected one of start, speak, agent, dtmf, condition, set_variables, transform, webhook, dial, transfer_to_human, transfer_call, end, hangup.",
      },
      {
        node_id: 'nameless',
        field: 'type',
        message:
          'Unknown node type missing; expected one of start, speak, agent, dtmf, condition, set_variables, transform, webhook, dial, transfer_to_human, transfer_call, end, hangup.',
      },
      { node_id: 'cfg', field: 'config', message: '`config` must be an object.' },
    ]);
    expect(result.valid).toBe(false);
  });

  it('treats a missing config as empty and warns about a bad position', () => {
    const result = validateGraph(
      {
        nodes: [
          { id: 'start', type: 'start' },
          { ...bye, position: { x: 'left' } },
        ],
        edges: [{ source: 'start', target: 'bye' }],
      },
      {},
    );
    expect(result).toEqual({
      valid: true,
      errors: [],
      warnings: [
        {
          node_id: 'bye',
          field: 'position',
          message: '`position` should be {"x": number, "y": number}; editors may misplace the node.',
        },
      ],
    });
  });
});

describe('edges', () => {
  //  start ──► ask ─success─► bye
  //             └──timeout──► bye
  const ask = { id: 'ask', type: 'dtmf', config: { save_to_variable: 'pin' } };
  const good = [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ];

  it('accepts the well-formed graph', () => {
    expect(validateGraph({ nodes: [start, ask, bye], edges: good }, {})).toEqual({
      valid: true,
      errors: [],
      warnings: [],
    });
  });

  it('names the edge field for unknown nodes, bad handles and malformed edges', () => {
    const result = validateGraph(
      {
        nodes: [start, ask, bye],
        edges: [
          ...good,
          { source: 'ghost', target: 'bye' },
          { source: 'ask', source_handle: 'nope', target: 'bye' },
          { source: 'start', target: 'ghost' },
          { source: 'bye', target: 'start' },
          7,
          { target: 'bye' },
          { source: 'ask', source_handle: 5, target: 'bye' },
          { source: 'ask', source_handle: 'timeout', target: 'start' },
          { source: 'ask', source_handle: 'default', target: 'bye' },
        ],
      },
      {},
    );
    expect(result.errors).toEqual([
      { node_id: '', field: 'edges[3].source', message: "No node has the id 'ghost'." },
      {
        node_id: 'ask',
        field: 'edges[4].source_handle',
        message: "Node 'ask' (dtmf) has no handle 'nope'; its handles are: success, timeout.",
      },
      { node_id: 'start', field: 'edges[5].target', message: "No node has the id 'ghost'." },
      {
        node_id: 'bye',
        field: 'edges[6].source',
        message: "Node 'bye' (end) ends the flow; it cannot have outgoing edges.",
      },
      { node_id: '', field: 'edges[7]', message: 'Each edge must be an object with `source` and `target`.' },
      { node_id: '', field: 'edges[8].source', message: 'The edge needs a `source` node id.' },
      {
        node_id: 'ask',
        field: 'edges[9].source_handle',
        message: '`source_handle` must be a non-empty string when present.',
      },
      {
        node_id: 'ask',
        field: 'edges[10].source_handle',
        message:
          "Handle 'timeout' of node 'ask' already leads to 'bye' (edges[2]); a handle leads to one node.",
      },
    ]);
    // `default` on a dtmf node means `success`: the same edge again.
    expect(result.warnings).toEqual([
      { node_id: 'ask', field: 'edges[11]', message: 'Same edge as edges[1].' },
    ]);
  });
});
