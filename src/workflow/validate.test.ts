// The validator end to end: the graph format's sample, a realistic support line, and robustness.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateGraph } from './validate.js';

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

//  start ─► greet ─► menu(dtmf) ─success─► route(condition) ─billing─► lookup(webhook) ─success─► bot(agent)
//                      │                      └─default─► human(transfer_to_human) ─failed─► sorry ─► bye
//                      └─timeout─► sorry                                   lookup ─error─► human
//  bot ─default─► bye      bot ─human─► human
const supportLine = {
  inputs: ['company', 'secret_crm'],
  nodes: [
    { id: 'start', type: 'start', config: {}, position: { x: 0, y: 0 } },
    { id: 'greet', type: 'speak', config: { text: 'Thanks for calling {{company}}.', barge_in: true } },
    {
      id: 'menu',
      type: 'dtmf',
      config: {
        prompt: 'Press 1 for billing, 2 for anything else.',
        num_digits: 1,
        timeout_seconds: 6,
        save_to_variable: 'choice',
      },
    },
    {
      id: 'route',
      type: 'condition',
      config: { branches: [{ handle: 'billing', expression: "choice == '1'" }] },
    },
    {
      id: 'lookup',
      type: 'webhook',
      config: {
        method: 'POST',
        url: 'https://crm.example.com/lookup',
        body: '{"caller": "{{caller}}"}',
        auth: { type: 'hmac', secret_variable: 'secret_crm' },
        response_mapping: { tier: '$.customer.tier', account: '$.customer.id' },
      },
    },
    {
      id: 'bot',
      type: 'agent',
      config: {
        agent_id: 'agt_billing',
        instructions: 'The caller is a {{tier}} customer, account {{account}}.',
        exits: [{ handle: 'human', description: 'The caller asks for a person.' }],
      },
    },
    {
      id: 'human',
      type: 'transfer_to_human',
      config: {
        destination: 'sip:billing@pbx.example.com',
        announcement: 'A {{tier}} caller about billing.',
      },
    },
    { id: 'sorry', type: 'speak', config: { text: 'Sorry, nobody can take your call now.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'greet' },
    { source: 'greet', target: 'menu' },
    { source: 'menu', source_handle: 'success', target: 'route' },
    { source: 'menu', source_handle: 'timeout', target: 'sorry' },
    { source: 'route', source_handle: 'billing', target: 'lookup' },
    { source: 'route', target: 'human' },
    { source: 'lookup', source_handle: 'success', target: 'bot' },
    { source: 'lookup', source_handle: 'error', target: 'human' },
    { source: 'bot', target: 'bye' },
    { source: 'bot', source_handle: 'human', target: 'human' },
    { source: 'human', source_handle: 'failed', target: 'sorry' },
    { source: 'sorry', target: 'bye' },
  ],
};

describe('validateGraph', () => {
  it("accepts the graph format's sample graph", () => {
    expect(validateGraph(contractSample, {})).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('accepts a realistic support line with its agent present', () => {
    expect(validateGraph(supportLine, { agentIds: new Set(['agt_billing']) })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
    });
  });

  it('reports the missing agent and the unset secret of the same graph', () => {
    const { inputs: _inputs, ...withoutInputs } = supportLine;
    const result = validateGraph(withoutInputs, { agentIds: new Set() });
    expect(result.errors).toEqual([
      { node_id: 'bot', field: 'agent_id', message: "No agent 'agt_billing' in this project." },
    ]);
    expect(result.warnings).toEqual([
      {
        node_id: 'greet',
        field: 'text',
        message:
          "Variable 'company' is read here but nothing sets it: no node writes it, it is not a system variable and not listed in `inputs`.",
      },
      {
        node_id: 'lookup',
        field: 'auth.secret_variable',
        message:
          "Variable 'secret_crm' is read here but nothing sets it: no node writes it, it is not a system variable and not listed in `inputs`.",
      },
    ]);
  });

  it('does not mutate its input', () => {
    const copy = structuredClone(supportLine);
    validateGraph(copy, {});
    expect(copy).toEqual(supportLine);
  });

  it('never throws, whatever JSON it is given (property)', () => {
    const nodeish = fc.record(
      {
        id: fc.oneof(fc.constantFrom('start', 'a', 'b', ''), fc.anything()),
        type: fc.oneof(
          fc.constantFrom('start', 'speak', 'dtmf', 'condition', 'agent', 'webhook', 'end', 'transfer_call'),
          fc.anything(),
        ),
        config: fc.oneof(
          fc.dictionary(
            fc.constantFrom(
              'text',
              'branches',
              'exits',
              'url',
              'save_to_variable',
              'variables',
              'auth',
              'destination',
            ),
            fc.jsonValue(),
          ),
          fc.anything(),
        ),
      },
      { requiredKeys: [] },
    );
    const edgeish = fc.record(
      {
        source: fc.oneof(fc.constantFrom('start', 'a', 'b'), fc.anything()),
        target: fc.oneof(fc.constantFrom('a', 'b'), fc.anything()),
        source_handle: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const graphs = fc.oneof(
      fc.anything(),
      fc.record(
        { nodes: fc.array(nodeish), edges: fc.array(edgeish), inputs: fc.anything() },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(graphs, (graph) => {
        const result = validateGraph(graph, { agentIds: new Set(['a']) });
        expect(result.valid).toBe(result.errors.length === 0);
        for (const finding of [...result.errors, ...result.warnings]) {
          expect(Object.keys(finding)).toEqual(['node_id', 'field', 'message']);
          expect(typeof finding.node_id).toBe('string');
          expect(typeof finding.field).toBe('string');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
