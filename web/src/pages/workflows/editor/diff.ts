// A diff of two workflow graphs, as a person reads one: steps added, removed and changed (which
// config keys), and connections added and removed. Positions are layout, not behaviour: a moved
// step is reported apart, so "what changes for callers" stays readable.
import { edgeHandleId, type Graph, type GraphNode } from './graph';

export interface NodeChange {
  id: string;
  type: string;
  /** Config keys whose value differs, plus `type` when the type itself changed. */
  keys: string[];
}

export interface GraphDiff {
  addedNodes: GraphNode[];
  removedNodes: GraphNode[];
  changedNodes: NodeChange[];
  movedNodes: string[];
  addedEdges: string[];
  removedEdges: string[];
}

/** JSON with sorted keys, so two equal objects compare equal whatever order they were written in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** An edge as `source —exit→ target`, its exit resolved (absent and `default` read the same). */
export function edgeKey(graph: Graph, edge: Graph['edges'][number]): string {
  const source = graph.nodes.find((n) => n.id === edge.source);
  return `${edge.source} —${edgeHandleId(edge, source)}→ ${edge.target}`;
}

export function diffGraphs(before: Graph, after: Graph): GraphDiff {
  const old = new Map(before.nodes.map((n) => [n.id, n]));
  const now = new Map(after.nodes.map((n) => [n.id, n]));
  const diff: GraphDiff = {
    addedNodes: after.nodes.filter((n) => !old.has(n.id)),
    removedNodes: before.nodes.filter((n) => !now.has(n.id)),
    changedNodes: [],
    movedNodes: [],
    addedEdges: [],
    removedEdges: [],
  };
  for (const n of after.nodes) {
    const o = old.get(n.id);
    if (!o) continue;
    const keys: string[] = [];
    if (o.type !== n.type) keys.push('type');
    const a = o.config ?? {};
    const b = n.config ?? {};
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (stableJson(a[k]) !== stableJson(b[k])) keys.push(k);
    }
    if (keys.length) diff.changedNodes.push({ id: n.id, type: n.type, keys });
    if (stableJson(o.position) !== stableJson(n.position)) diff.movedNodes.push(n.id);
  }
  const oldEdges = new Set(before.edges.map((e) => edgeKey(before, e)));
  const newEdges = new Set(after.edges.map((e) => edgeKey(after, e)));
  diff.addedEdges = [...newEdges].filter((k) => !oldEdges.has(k));
  diff.removedEdges = [...oldEdges].filter((k) => !newEdges.has(k));
  return diff;
}

export function isEmptyDiff(d: GraphDiff): boolean {
  return (
    !d.addedNodes.length &&
    !d.removedNodes.length &&
    !d.changedNodes.length &&
    !d.addedEdges.length &&
    !d.removedEdges.length
  );
}
