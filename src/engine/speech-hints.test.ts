import { describe, expect, it } from 'vitest';
import type { WorkflowGraph } from './workflow-deps.js';
import { expectedWords } from './speech-hints.js';

const graph = {
  schema_version: 1,
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'ask', type: 'agent', config: { agent_id: 'a', exits: ['done'] } },
    { id: 'pick', type: 'set_variables', config: { values: {} } },
    {
      id: 'route',
      type: 'condition',
      config: {
        branches: [
          { handle: 'billing', expression: "contains(lower(reply), 'billing')" },
          { handle: 'sales', expression: 'choice == "Sales Team" || choice == "42"' },
          { handle: 'odd', expression: "x == 'a-b' || y == 'one two three four five'" },
        ],
      },
    },
    {
      id: 'again',
      type: 'condition',
      config: { branches: [{ handle: 'yes', expression: "answer == 'yes please'" }] },
    },
    { id: 'far', type: 'condition', config: { branches: [{ handle: 'x', expression: "z == 'faraway'" }] } },
    { id: 'speak', type: 'speak', config: { text: 'hi' } },
    { id: 'after', type: 'condition', config: { branches: [{ handle: 'x', expression: "q == 'hidden'" }] } },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', target: 'pick', source_handle: 'done' },
    { source: 'pick', target: 'route' },
    { source: 'route', target: 'again', source_handle: 'billing' },
    { source: 'again', target: 'far', source_handle: 'yes' },
    { source: 'route', target: 'speak', source_handle: 'sales' },
    { source: 'speak', target: 'after' },
  ],
} as unknown as WorkflowGraph;

describe('expectedWords', () => {
  it('collects the word literals of the conditions after a node, through value-only nodes, up to three steps', () => {
    expect(expectedWords(graph, 'ask')).toEqual(['billing', 'sales team', 'yes please']);
  });

  it('stops at nodes that talk to the user, and has nothing for a node with no conditions after it', () => {
    expect(expectedWords(graph, 'speak')).toEqual(['hidden']);
    expect(expectedWords(graph, 'far')).toEqual([]);
  });
});
