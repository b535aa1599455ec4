// Pure lookups the interpreter needs, built once per execution:
//
//   start ──default──► ask ──success──► bye
//                       └───timeout───► bye
//
// becomes { start: {default: ask}, ask: {success: bye, timeout: bye} }. An edge without
// source_handle (or with `default`) leaves by the node type's default handle (node-specs.ts: `default`,
// or `success` for dtmf and webhook, `answered` for dial, `failed` for transfers). Edges naming a
// handle the node does not have are dropped; when two edges leave by the same handle the first wins
// (the validator reports both).
import { resolveHandle, type GraphNode, type WorkflowGraph } from './workflow-deps.js';

export type EdgeIndex = Map<string, Map<string, GraphNode>>;

// Published versions are frozen, and every session of a version shares one graph object, so the
// index is built once per graph object.
const cache = new WeakMap<WorkflowGraph, EdgeIndex>();

export function buildEdgeIndex(graph: WorkflowGraph): EdgeIndex {
  let index = cache.get(graph);
  if (!index) cache.set(graph, (index = indexEdges(graph)));
  return index;
}

function indexEdges(graph: WorkflowGraph): EdgeIndex {
  const byId = new Map<string, GraphNode>();
  for (const node of graph.nodes) byId.set(node.id, node);
  const index: EdgeIndex = new Map();
  for (const edge of graph.edges) {
    const target = byId.get(edge.target);
    const source = byId.get(edge.source);
    if (!target || !source) continue;
    const handle = resolveHandle(source, edge.source_handle);
    if (handle === null) continue;
    let handles = index.get(edge.source);
    if (!handles) index.set(edge.source, (handles = new Map()));
    if (!handles.has(handle)) handles.set(handle, target);
  }
  return index;
}

export function findStartNode(graph: WorkflowGraph): GraphNode | undefined {
  return graph.nodes.find((n) => n.type === 'start');
}
