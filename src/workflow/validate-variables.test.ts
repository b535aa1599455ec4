// Variable rules: reads that nothing sets, non-path placeholders, writes over system variables,
// secrets that would be spoken.
import { describe, expect, it } from 'vitest';
import { validateGraph } from './validate.js';

const start = { id: 'start', type: 'start', config: {} };
const bye = { id: 'bye', type: 'end', config: {} };

/** start ──► nodes[0] ──► nodes[1] … ──► bye, all by default handles. */
function chain(
  nodes: Array<{ id: string; type: string; config: Record<string, unknown> }>,
  inputs?: string[],
) {
  const all = [start, ...nodes, bye];
  const edges: Array<{ source: string; target: string; source_handle?: string }> = all
    .slice(1)
    .map((node, i) => ({ source: all[i].id, target: node.id }));
  return { nodes: all, edges, ...(inputs ? { inputs } : {}) };
}

const unset = (node_id: string, field: string, name: string) => ({
  node_id,
  field,
  message: `Variable '${name}' is read here but nothing sets it: no node writes it, it is not a system variable and not listed in \`inputs\`.`,
});

describe('variables nothing sets', () => {
  it('counts system variables, inputs and every kind of write as set', () => {
    //  start ► ask(dtmf→pin) ► norm(transform→digits) ► vars(set→greeting) ► hook(webhook→tier)
    //        ► bot(agent→reason) ► route(condition) ► say(speak) ► bye
    const graph = chain(
      [
        { id: 'ask', type: 'dtmf', config: { prompt: 'Hi {{caller}}', save_to_variable: 'pin' } },
        {
          id: 'norm',
          type: 'transform',
          config: { operation: 'digits_only', input: '{{pin}}', save_to_variable: 'digits' },
        },
        {
          id: 'vars',
          type: 'set_variables',
          config: { variables: { greeting: 'Hello {{account}} since {{started_at}}' } },
        },
        {
          id: 'hook',
          type: 'webhook',
          config: {
            url: 'https://crm.example.com/{{digits}}?c={{call_id}}',
            response_mapping: { tier: '$.tier' },
          },
        },
        {
          id: 'bot',
          type: 'agent',
          config: {
            agent_id: 'a',
            instructions: '{{greeting}} {{tier}}',
            outputs: [{ variable: 'reason', description: 'd' }],
          },
        },
        {
          id: 'route',
          type: 'condition',
          config: { branches: [{ handle: 'vip', expression: "tier == 'gold' && reason != ''" }] },
        },
        { id: 'say', type: 'speak', config: { text: '{{channel}} {{workflow_version}} {{session_id}}' } },
      ],
      ['account'],
    );
    graph.edges.push(
      { source: 'route', source_handle: 'vip', target: 'say' },
      { source: 'ask', source_handle: 'timeout', target: 'bye' },
      { source: 'hook', source_handle: 'error', target: 'bye' },
    );
    expect(validateGraph(graph, {})).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('warns once per field and name, for templates and expressions alike', () => {
    const graph = chain([
      { id: 'say', type: 'speak', config: { text: '{{who}} and {{who.name}} and {{ who }} at {{where}}' } },
      {
        id: 'route',
        type: 'condition',
        config: { branches: [{ handle: 'x', expression: 'level > 3 || level == null' }] },
      },
    ]);
    graph.edges.push({ source: 'route', source_handle: 'x', target: 'bye' });
    expect(validateGraph(graph, {})).toEqual({
      valid: true,
      errors: [],
      warnings: [
        unset('say', 'text', 'who'),
        unset('say', 'text', 'where'),
        unset('route', 'branches[0].expression', 'level'),
      ],
    });
  });

  it('names nested template fields', () => {
    const graph = chain([
      {
        id: 'hook',
        type: 'webhook',
        config: {
          url: 'https://x.example.com',
          headers: { 'X-Id': '{{ident}}' },
          body: '{{payload}}',
          auth: { type: 'bearer', token: '{{secret_tok}}' },
        },
      },
      { id: 'vars', type: 'set_variables', config: { variables: { a: '{{b}}' } } },
    ]);
    expect(validateGraph(graph, {}).warnings).toEqual([
      {
        node_id: 'hook',
        field: '',
        message: "Handle 'error' has no edge; an execution that leaves by it fails.",
      },
      unset('hook', 'headers.X-Id', 'ident'),
      unset('hook', 'body', 'payload'),
      unset('hook', 'auth.token', 'secret_tok'),
      unset('vars', 'variables.a', 'b'),
    ]);
  });
});

describe('other variable warnings', () => {
  it('warns about placeholders that are not variable paths', () => {
    const graph = chain([{ id: 'say', type: 'speak', config: { text: 'Total: {{ price * 2 }}' } }]);
    expect(validateGraph(graph, {}).warnings).toEqual([
      {
        node_id: 'say',
        field: 'text',
        message:
          '{{ price * 2 }} is not a variable reference (a name or dotted path) and is kept as written.',
      },
    ]);
  });

  it('warns when a node overwrites a system variable', () => {
    const graph = chain([
      { id: 'vars', type: 'set_variables', config: { variables: { caller: 'someone' } } },
    ]);
    expect(validateGraph(graph, {}).warnings).toEqual([
      {
        node_id: 'vars',
        field: 'variables.caller',
        message: "'caller' is a system variable; writing it hides the value the engine set.",
      },
    ]);
  });

  it('warns when a secret would be spoken, but not when sent to a webhook', () => {
    const graph = chain(
      [
        { id: 'say', type: 'speak', config: { text: 'Your code is {{secret_code}}' } },
        { id: 'hook', type: 'webhook', config: { url: 'https://x.example.com', body: '{{secret_code}}' } },
      ],
      ['secret_code'],
    );
    graph.edges.push({ source: 'hook', source_handle: 'error', target: 'bye' });
    expect(validateGraph(graph, {}).warnings).toEqual([
      { node_id: 'say', field: 'text', message: "Secret variable 'secret_code' would be spoken aloud." },
    ]);
  });
});
