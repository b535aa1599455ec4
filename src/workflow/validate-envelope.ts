// Envelope checks: the graph is an object with `nodes` and `edges` arrays of the right shapes.
// Later rules only look at what passed here.

import type { Finding } from './validate.js';

export function checkEnvelope(graph: unknown, errors: Finding[]): void {
  if (typeof graph !== 'object' || graph === null || Array.isArray(graph)) {
    errors.push({
      node_id: '',
      field: '',
      message: 'The graph must be a JSON object with `nodes` and `edges`.',
    });
    return;
  }
  const { nodes, edges } = graph as { nodes?: unknown; edges?: unknown };
  if (!Array.isArray(nodes))
    errors.push({ node_id: '', field: 'nodes', message: '`nodes` must be an array.' });
  if (!Array.isArray(edges))
    errors.push({ node_id: '', field: 'edges', message: '`edges` must be an array.' });
}
