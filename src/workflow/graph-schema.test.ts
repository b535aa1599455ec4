import { describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import { NODE_TYPES } from './graph.types.js';
import { nodeConfigSchemas, workflowGraphJsonSchema } from './graph-schema.js';
import { validateGraph } from './validate.js';

// ajv is CommonJS: depending on the loader its class is the default import or its `.default`.
type AjvClass = typeof Ajv2020Module.default;
const Ajv2020: AjvClass =
  (Ajv2020Module as unknown as { default?: AjvClass }).default ?? (Ajv2020Module as unknown as AjvClass);

const contractSample = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Enter your PIN',
        num_digits: 4,
        terminator: '#',
        timeout_seconds: 5,
        save_to_variable: 'pin',
      },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ],
};

function compile() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  return ajv.compile(workflowGraphJsonSchema);
}

function withNode(node: Record<string, unknown>) {
  return { nodes: [...contractSample.nodes, node], edges: contractSample.edges };
}

describe('workflowGraphJsonSchema', () => {
  it('is plain JSON (no TypeBox symbols) declaring draft 2020-12', () => {
    expect(JSON.parse(JSON.stringify(workflowGraphJsonSchema))).toEqual(workflowGraphJsonSchema);
    expect(workflowGraphJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const defs = workflowGraphJsonSchema.$defs as Record<string, unknown>;
    for (const type of NODE_TYPES) {
      expect(defs[`${type}_node`]).toBeDefined();
      expect(defs[`${type}_config`]).toBeDefined();
    }
    expect(Object.keys(nodeConfigSchemas)).toEqual([...NODE_TYPES]);
  });

  it("compiles under ajv strict mode and accepts the graph format's sample graph", () => {
    const validate = compile();
    expect(validate(contractSample), JSON.stringify(validate.errors)).toBe(true);
  });

  it('accepts one well-formed node of every type, with extra editor keys', () => {
    const validate = compile();
    const nodes = [
      { id: 's', type: 'start', config: {}, position: { x: 1, y: 2 } },
      { id: 'sp', type: 'speak', config: { text: 'Hi {{caller}}', barge_in: false, editor_note: 'x' } },
      {
        id: 'ag',
        type: 'agent',
        config: {
          agent_id: 'a1',
          exits: [{ handle: 'billing', description: 'billing questions' }],
          outputs: [{ variable: 'reason', description: 'why they called' }],
          history: 'reset',
          max_turns: 8,
        },
      },
      { id: 'c', type: 'condition', config: { branches: [{ handle: 'vip', expression: "tier == 'gold'" }] } },
      { id: 'sv', type: 'set_variables', config: { variables: { a: 'x', b: 2, c: true, d: null } } },
      {
        id: 't',
        type: 'transform',
        config: { operation: 'extract_digits', input: '{{said}}', save_to_variable: 'n' },
      },
      {
        id: 'w',
        type: 'webhook',
        config: {
          method: 'POST',
          url: 'https://crm.example.com/lookup',
          headers: { 'X-Caller': '{{caller}}' },
          body: '{"caller": "{{caller}}"}',
          timeout_seconds: 5,
          auth: { type: 'hmac', secret_variable: 'secret_crm' },
          response_mapping: { tier: '$.customer.tier' },
        },
      },
      { id: 'd', type: 'dial', config: { to: 'tel:+14155550100', ring_timeout_seconds: 20 } },
      {
        id: 'h',
        type: 'transfer_to_human',
        config: { destination: 'sip:desk@pbx.example.com', announcement: 'x' },
      },
      { id: 'tc', type: 'transfer_call', config: { destination: 'tel:{{number}}' } },
      { id: 'e', type: 'end', config: {} },
      { id: 'hu', type: 'hangup', config: {} },
    ];
    expect(validate({ nodes, edges: [], inputs: ['said'] }), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['an unknown type', { id: 'x', type: 'teleport', config: {} }],
    ['dtmf without save_to_variable', { id: 'x', type: 'dtmf', config: { num_digits: 4 } }],
    ['dtmf with num_digits 0', { id: 'x', type: 'dtmf', config: { num_digits: 0, save_to_variable: 'p' } }],
    [
      'dtmf with a negative timeout',
      { id: 'x', type: 'dtmf', config: { timeout_seconds: -1, save_to_variable: 'p' } },
    ],
    [
      'a bad transform operation',
      { id: 'x', type: 'transform', config: { operation: 'eval', input: '', save_to_variable: 'v' } },
    ],
    ['webhook without url', { id: 'x', type: 'webhook', config: { method: 'POST' } }],
    ['a speak node without config (its text is required)', { id: 'x', type: 'speak' }],
    ['a bad variable name', { id: 'x', type: 'set_variables', config: { variables: { '1bad': 'x' } } }],
    [
      'a bad handle name',
      { id: 'x', type: 'condition', config: { branches: [{ handle: 'Bad Handle', expression: 'x' }] } },
    ],
  ])('rejects %s', (_label, node) => {
    const validate = compile();
    expect(validate(withNode(node))).toBe(false);
  });

  it('accepts a node without config, as the validator does (a missing config is {})', () => {
    const validate = compile();
    const graph = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'bye', type: 'end' },
      ],
      edges: [{ source: 'start', target: 'bye' }],
    };
    expect(validate(graph), JSON.stringify(validate.errors)).toBe(true);
    expect(validateGraph(graph, {}).errors).toEqual([]);
  });

  it('rejects an envelope without edges', () => {
    expect(compile()({ nodes: [] })).toBe(false);
  });
});
