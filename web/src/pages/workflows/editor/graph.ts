// The workflow graph (the API's schema_version 1 envelope) ↔ the canvas's nodes and edges. The
// conversion keeps what it does not understand: unknown keys on nodes, edges and the envelope go
// back out as they came in, and an edge keeps `source_handle` exactly as written (absent stays
// absent), so opening and saving a graph changes nothing but what the person changed.
import type { Edge, Node } from '@xyflow/react';
import { DEFAULT_HANDLE, isNodeType, nodeHandles, resolveHandle } from './node-catalog';
import type { NodeType } from './node-catalog';

export interface GraphNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  position?: { x: number; y: number };
  [key: string]: unknown;
}

export interface GraphEdge {
  source: string;
  target: string;
  source_handle?: string;
  [key: string]: unknown;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  [key: string]: unknown;
}

export interface Finding {
  node_id: string;
  field: string;
  message: string;
  /** Absent on errors; warnings do not block publishing. */
  severity?: 'warning';
}

/** What a canvas node carries: the graph node as written (minus position), plus what the canvas shows. */
export interface StepData extends Record<string, unknown> {
  node: GraphNode;
  errors?: Finding[];
  warnings?: Finding[];
  /** Step number on the simulated path (1-based), when a simulation passed through it. */
  visited?: number[];
  readOnly?: boolean;
}

export interface LinkData extends Record<string, unknown> {
  /** The edge as written, so unknown keys and an absent `source_handle` survive a round trip. */
  edge: GraphEdge;
}

export type StepNode = Node<StepData, 'step'>;
export type LinkEdge = Edge<LinkData>;

export const EMPTY_GRAPH: Graph = { nodes: [], edges: [] };

/** Reads whatever the API returned as a graph; anything malformed becomes an empty list. */
export function asGraph(value: unknown): Graph {
  if (typeof value !== 'object' || value === null) return { nodes: [], edges: [] };
  const g = value as Record<string, unknown>;
  const nodes = Array.isArray(g.nodes)
    ? (g.nodes.filter((n) => typeof n === 'object' && n !== null && typeof n.id === 'string') as GraphNode[])
    : [];
  const edges = Array.isArray(g.edges)
    ? (g.edges.filter(
        (e) =>
          typeof e === 'object' && e !== null && typeof e.source === 'string' && typeof e.target === 'string',
      ) as GraphEdge[])
    : [];
  return { ...g, nodes, edges };
}

/** The canvas handle id an edge leaves by: its resolved exit, or what it wrote when that names none. */
export function edgeHandleId(edge: GraphEdge, source: GraphNode | undefined): string {
  if (!source) return edge.source_handle ?? DEFAULT_HANDLE;
  return (
    resolveHandle(source.type, source.config, edge.source_handle) ?? edge.source_handle ?? DEFAULT_HANDLE
  );
}

export function edgeId(source: string, handle: string, target: string): string {
  return `${source}:${handle}->${target}`;
}

/** Where a node without `position` goes: a column per 5 nodes, so nothing lands on another. */
function fallbackPosition(index: number): { x: number; y: number } {
  return { x: 80 + Math.floor(index / 5) * 280, y: 60 + (index % 5) * 140 };
}

export function toFlow(graph: Graph, readOnly = false): { nodes: StepNode[]; edges: LinkEdge[] } {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes: StepNode[] = graph.nodes.map((n, i) => {
    const { position, ...rest } = n;
    const pos =
      position && typeof position.x === 'number' && typeof position.y === 'number'
        ? { x: position.x, y: position.y }
        : fallbackPosition(i);
    return {
      id: n.id,
      type: 'step',
      position: pos,
      data: { node: rest as GraphNode, ...(readOnly ? { readOnly } : {}) },
      ...(readOnly ? { draggable: false, connectable: false, deletable: false } : {}),
    };
  });
  const seen = new Set<string>();
  const edges: LinkEdge[] = [];
  for (const e of graph.edges) {
    const handle = edgeHandleId(e, byId.get(e.source));
    let id = edgeId(e.source, handle, e.target);
    // Duplicate edges are a validation finding, not something to lose: give each its own id.
    for (let k = 2; seen.has(id); k++) id = `${edgeId(e.source, handle, e.target)}#${k}`;
    seen.add(id);
    edges.push({
      id,
      source: e.source,
      sourceHandle: handle,
      target: e.target,
      targetHandle: 'in',
      label: handle === DEFAULT_HANDLE ? undefined : handle.replace(/_/g, ' '),
      data: { edge: e },
      ...(readOnly ? { deletable: false } : {}),
    });
  }
  return { nodes, edges };
}

/** The canvas back to the API's envelope; `base` carries the envelope's other keys (e.g. `inputs`). */
export function toGraph(nodes: StepNode[], edges: LinkEdge[], base: Graph = EMPTY_GRAPH): Graph {
  const { nodes: _n, edges: _e, ...rest } = base;
  return {
    ...rest,
    nodes: nodes.map((n) => ({
      ...n.data.node,
      position: { x: Math.round(n.position.x), y: Math.round(n.position.y) },
    })),
    edges: edges.map((e) => {
      const written = e.data?.edge;
      const handle = e.sourceHandle ?? DEFAULT_HANDLE;
      if (written && written.source === e.source && written.target === e.target) return written;
      return newEdge(e.source, handle, e.target);
    }),
  };
}

/** A new edge as the API writes it: the default handle is left implicit, any other is named. */
export function newEdge(source: string, handle: string, target: string): GraphEdge {
  return handle === DEFAULT_HANDLE ? { source, target } : { source, target, source_handle: handle };
}

/** A canvas edge for a new connection from `source`'s exit `handle` to `target`. */
export function linkEdge(source: string, handle: string, target: string): LinkEdge {
  return {
    id: edgeId(source, handle, target),
    source,
    sourceHandle: handle,
    target,
    targetHandle: 'in',
    label: handle === DEFAULT_HANDLE ? undefined : handle.replace(/_/g, ' '),
    data: { edge: newEdge(source, handle, target) },
  };
}

/** The id a new node of `type` gets: the type's name, numbered when taken (speak, speak_2, …). */
export function freshNodeId(type: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(type)) return type;
  for (let i = 2; ; i++) if (!used.has(`${type}_${i}`)) return `${type}_${i}`;
}

/** A starting config that already names what the type needs, so a new node reads well at once. */
export function defaultConfig(type: NodeType): Record<string, unknown> {
  switch (type) {
    case 'speak':
      return { text: '' };
    case 'condition':
      return { branches: [] };
    case 'set_variables':
      return { variables: {} };
    case 'transform':
      return { operation: 'trim', input: '', save_to_variable: '' };
    default:
      return {};
  }
}

export function newStepNode(type: NodeType, id: string, position: { x: number; y: number }): StepNode {
  const node: GraphNode = { id, type, config: defaultConfig(type) };
  return { id, type: 'step', position, data: { node } };
}

/** Handles a node offers now (config-named ones included); an unknown type offers none. */
export function exitsOf(node: GraphNode): string[] {
  return isNodeType(node.type) ? nodeHandles(node.type, node.config) : [];
}

/** Drops the edges leaving `nodeId` by exits it no longer has (a branch renamed or removed). */
export function dropExits(edges: LinkEdge[], nodeId: string, before: string[], after: string[]): LinkEdge[] {
  const gone = new Set(before.filter((h) => !after.includes(h)));
  if (gone.size === 0) return edges;
  return edges.filter((e) => !(e.source === nodeId && gone.has(e.sourceHandle ?? DEFAULT_HANDLE)));
}

/** Why `to` cannot be `from`'s new id, or null when it can (the API asks only for a unique, non-empty id). */
export function renameProblem(nodes: StepNode[], from: string, to: string): string | null {
  if (to.trim() === '') return 'A step needs an id.';
  if (to !== to.trim()) return 'An id cannot start or end with a space.';
  if (to !== from && nodes.some((n) => n.id === to)) return `Another step is already called ${to}.`;
  return null;
}

/**
 * Renames a step: its id, and every edge that leaves or enters it (each keeps its exit and the
 * keys it was written with), so the flow runs as before under the new name.
 */
export function renameNode(
  nodes: StepNode[],
  edges: LinkEdge[],
  from: string,
  to: string,
): { nodes: StepNode[]; edges: LinkEdge[] } {
  if (from === to) return { nodes, edges };
  const swap = (id: string) => (id === from ? to : id);
  return {
    nodes: nodes.map((n) =>
      n.id === from ? { ...n, id: to, data: { ...n.data, node: { ...n.data.node, id: to } } } : n,
    ),
    edges: edges.map((e) => {
      if (e.source !== from && e.target !== from) return e;
      const source = swap(e.source);
      const target = swap(e.target);
      const handle = e.sourceHandle ?? DEFAULT_HANDLE;
      const written = e.data?.edge;
      return {
        ...e,
        id: edgeId(source, handle, target),
        source,
        target,
        data: { edge: written ? { ...written, source, target } : newEdge(source, handle, target) },
      };
    }),
  };
}
