// The workflow graph envelope (schema_version 1) as TypeScript types. The names here are fixed
// for operators and their scripts (docs/workflow-nodes.md): the API stores this shape, the validator checks it and the
// engine runs it. Per-type config shapes live in graph-schema.ts (TypeBox) next to the JSON Schema.

/** Version of the graph envelope; stored with every published version. */
export const SCHEMA_VERSION = 1;

/** Every node type, in the order docs/workflow-nodes.md presents them. */
export const NODE_TYPES = [
  'start',
  'speak',
  'agent',
  'dtmf',
  'condition',
  'set_variables',
  'transform',
  'webhook',
  'dial',
  'transfer_to_human',
  'transfer_call',
  'end',
  'hangup',
] as const;

export type NodeType = (typeof NODE_TYPES)[number];

const NODE_TYPE_SET: ReadonlySet<string> = new Set(NODE_TYPES);

export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && NODE_TYPE_SET.has(value);
}

export interface GraphPosition {
  x: number;
  y: number;
}

export interface GraphNode {
  id: string;
  type: NodeType;
  config: Record<string, unknown>;
  /** For editors only; the engine ignores it. */
  position?: GraphPosition;
}

export interface GraphEdge {
  source: string;
  target: string;
  /** Absent: the edge leaves by the source node's default handle (see node-specs.ts). */
  source_handle?: string;
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /**
   * Optional (beyond the API specification): names of variables the workflow expects to be seeded by a
   * dispatch rule, the session or the call. They count as set for the "nothing sets it" warning.
   */
  inputs?: string[];
}
