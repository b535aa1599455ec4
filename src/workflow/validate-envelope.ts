// Envelope checks: the graph is an object with `nodes` and `edges` arrays, every node has a unique
// id, a known type and an object config, every edge names existing nodes and a handle its source
// has, and no handle leads to two places. What passes comes back normalized for the later rules.

import { isNodeType } from './graph.types.js';
import type { GraphNode } from './graph.types.js';
import { NODE_SPECS, nodeHandles, resolveHandle } from './node-specs.js';
import { VARIABLE_NAME } from './validate-shared.js';
import type { Findings } from './validate-shared.js';

export interface CheckedEdge {
  index: number;
  source: string;
  target: string;
  /** The resolved handle (`default`/absent already mapped to the node's default handle). */
  handle: string;
}

export interface CheckedGraph {
  /** Nodes with a unique id and a known type, in graph order (first of duplicates kept). */
  nodes: GraphNode[];
  edges: CheckedEdge[];
  inputs: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkEnvelope(graph: unknown, out: Findings): CheckedGraph {
  const checked: CheckedGraph = { nodes: [], edges: [], inputs: [] };
  if (!isRecord(graph)) {
    out.error('', '', 'The graph must be a JSON object with `nodes` and `edges` arrays.');
    return checked;
  }
  if (!Array.isArray(graph.nodes)) out.error('', 'nodes', '`nodes` must be an array.');
  if (!Array.isArray(graph.edges)) out.error('', 'edges', '`edges` must be an array.');
  checked.inputs = checkInputs(graph.inputs, out);
  const byId = checkNodes(Array.isArray(graph.nodes) ? graph.nodes : [], out);
  checked.nodes = [...byId.values()];
  // Without a node list every edge would name a missing node; the `nodes` finding says it all.
  if (Array.isArray(graph.nodes) && Array.isArray(graph.edges))
    checked.edges = checkEdges(graph.edges, byId, out);
  return checked;
}

function checkInputs(inputs: unknown, out: Findings): string[] {
  if (inputs === undefined) return [];
  if (!Array.isArray(inputs)) {
    out.error('', 'inputs', '`inputs` must be an array of variable names.');
    return [];
  }
  const names: string[] = [];
  inputs.forEach((name, i) => {
    if (typeof name === 'string' && VARIABLE_NAME.test(name)) names.push(name);
    else
      out.error(
        '',
        `inputs[${i}]`,
        'Must be a variable name (letters, digits and _, not starting with a digit).',
      );
  });
  return names;
}

function checkNodes(nodes: unknown[], out: Findings): Map<string, GraphNode> {
  const byId = new Map<string, GraphNode>();
  const firstIndex = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!isRecord(node)) {
      out.error('', `nodes[${i}]`, 'Each node must be an object with `id`, `type` and `config`.');
      return;
    }
    const { id, type, config, position } = node;
    if (typeof id !== 'string' || id.trim() === '') {
      out.error('', `nodes[${i}].id`, 'Each node needs a non-empty string `id`.');
      return;
    }
    const first = firstIndex.get(id);
    if (first !== undefined) {
      out.error(id, 'id', `Duplicate node id '${id}': nodes[${first}] has it too.`);
      return;
    }
    firstIndex.set(id, i);
    if (!isNodeType(type)) {
      const shown = typeof type === 'string' ? `'${type}'` : 'missing';
      out.error(
        id,
        'type',
        `Unknown node type ${shown}; expected one of ${Object.keys(NODE_SPECS).join(', ')}.`,
      );
      return;
    }
    if (config !== undefined && !isRecord(config)) {
      out.error(id, 'config', '`config` must be an object.');
      return;
    }
    if (
      position !== undefined &&
      !(isRecord(position) && isFiniteNumber(position.x) && isFiniteNumber(position.y))
    ) {
      out.warning(
        id,
        'position',
        '`position` should be {"x": number, "y": number}; editors may misplace the node.',
      );
    }
    byId.set(id, { id, type, config: config ?? {} });
  });
  return byId;
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function checkEdges(edges: unknown[], byId: ReadonlyMap<string, GraphNode>, out: Findings): CheckedEdge[] {
  const checked: CheckedEdge[] = [];
  const taken = new Map<string, CheckedEdge>();
  edges.forEach((edge, index) => {
    const at = `edges[${index}]`;
    if (!isRecord(edge)) {
      out.error('', at, 'Each edge must be an object with `source` and `target`.');
      return;
    }
    const { source, target, source_handle: sourceHandle } = edge;
    const sourceNode = typeof source === 'string' ? byId.get(source) : undefined;
    const owner = sourceNode?.id ?? '';
    if (typeof source !== 'string' || source === '') {
      out.error('', `${at}.source`, 'The edge needs a `source` node id.');
    } else if (sourceNode === undefined) {
      out.error('', `${at}.source`, `No node has the id '${source}'.`);
    }
    if (typeof target !== 'string' || target === '') {
      out.error(owner, `${at}.target`, 'The edge needs a `target` node id.');
    } else if (!byId.has(target)) {
      out.error(owner, `${at}.target`, `No node has the id '${target}'.`);
    }
    if (sourceHandle !== undefined && (typeof sourceHandle !== 'string' || sourceHandle === '')) {
      out.error(owner, `${at}.source_handle`, '`source_handle` must be a non-empty string when present.');
      return;
    }
    if (sourceNode === undefined || typeof target !== 'string' || !byId.has(target)) return;
    const handle = resolveHandle(sourceNode, sourceHandle);
    if (handle === null) {
      out.error(
        owner,
        sourceHandle === undefined ? `${at}.source` : `${at}.source_handle`,
        noHandle(sourceNode, sourceHandle),
      );
      return;
    }
    const key = `${owner}\u0000${handle}`;
    const previous = taken.get(key);
    if (previous !== undefined) {
      if (previous.target !== target) {
        out.error(
          owner,
          `${at}.source_handle`,
          `Handle '${handle}' of node '${owner}' already leads to '${previous.target}' (edges[${previous.index}]); a handle leads to one node.`,
        );
      } else {
        out.warning(owner, at, `Same edge as edges[${previous.index}].`);
      }
      return;
    }
    const checkedEdge = { index, source: owner, target, handle };
    taken.set(key, checkedEdge);
    checked.push(checkedEdge);
  });
  return checked;
}

function noHandle(node: GraphNode, sourceHandle: string | undefined): string {
  const handles = nodeHandles(node);
  if (handles.length === 0)
    return `Node '${node.id}' (${node.type}) ends the flow; it cannot have outgoing edges.`;
  if (sourceHandle === undefined) {
    return `Node '${node.id}' (${node.type}) has no default handle; set \`source_handle\` to one of: ${handles.join(', ')}.`;
  }
  return `Node '${node.id}' (${node.type}) has no handle '${sourceHandle}'; its handles are: ${handles.join(', ')}.`;
}
