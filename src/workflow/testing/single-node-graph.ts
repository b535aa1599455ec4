// Test helper (not shipped logic): wraps one node as `start ──► node ──(every handle)──► bye` so a
// config test sees only the findings of that node's config.

import type { GraphNode } from '../graph.types.js';
import { nodeHandles } from '../node-specs.js';

export function singleNodeGraph(
  type: GraphNode['type'],
  config: Record<string, unknown>,
  extra: { inputs?: string[] } = {},
): unknown {
  const node = { id: 'n', type, config };
  const handles = nodeHandles(node);
  return {
    nodes: [{ id: 'start', type: 'start', config: {} }, node, { id: 'bye', type: 'end', config: {} }],
    edges: [
      { source: 'start', target: 'n' },
      ...handles.map((handle) => ({ source: 'n', source_handle: handle, target: 'bye' })),
    ],
    ...extra,
  };
}
