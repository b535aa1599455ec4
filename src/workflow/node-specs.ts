// What the engine and the validator know about each node type without running it: its handles
// (and which one an edge without `source_handle` means), whether it ends the flow, and whether it
// needs a phone call. Handles of `condition` and `agent` also come from their config. The
// variables a node reads and writes are computed in node-variables.ts and re-exported here.

import type { GraphNode, NodeType } from './graph.types.js';

export {
  FIXED_WRITES,
  nodeExpressions,
  nodeTemplates,
  nodeVariableReads,
  nodeVariableWrites,
  variablesRead,
  variablesWritten,
} from './node-variables.js';
export type { FieldValue } from './node-variables.js';

/** The name an edge may use to mean "the default handle" of any node that has one. */
export const DEFAULT_HANDLE = 'default';

export interface NodeSpec {
  type: NodeType;
  /** Label for editors and docs. */
  label: string;
  /** Handles every node of this type has (config may add more: condition, agent). */
  handles: readonly string[];
  /** The handle an edge without `source_handle` leaves by; null when the node has no way out. */
  defaultHandle: string | null;
  /** Handles named by the config: `condition` branches, `agent` exits. */
  configHandles: 'none' | 'branches' | 'exits';
  /** `end` and `hangup`: the execution finishes here and the node has no handles. */
  terminal: boolean;
  /**
   * Needs a phone call (SIP). On the text channel the engine simulates the outcome; see
   * docs/workflow-nodes.md. `dtmf` is not listed: web and text sessions send digits as messages.
   */
  telephony: boolean;
  /** A successful run ends the execution (status `transferred`); only the failure path continues. */
  endsOnSuccess: boolean;
}

function spec(
  type: NodeType,
  label: string,
  handles: readonly string[],
  extra: Partial<NodeSpec> = {},
): NodeSpec {
  return {
    type,
    label,
    handles,
    defaultHandle: handles[0] ?? null,
    configHandles: 'none',
    terminal: false,
    telephony: false,
    endsOnSuccess: false,
    ...extra,
  };
}

export const NODE_SPECS: Readonly<Record<NodeType, NodeSpec>> = {
  start: spec('start', 'Start', [DEFAULT_HANDLE]),
  speak: spec('speak', 'Speak', [DEFAULT_HANDLE]),
  agent: spec('agent', 'Agent', [DEFAULT_HANDLE], { configHandles: 'exits' }),
  dtmf: spec('dtmf', 'Collect DTMF', ['success', 'timeout']),
  condition: spec('condition', 'Condition', [DEFAULT_HANDLE], { configHandles: 'branches' }),
  set_variables: spec('set_variables', 'Set variables', [DEFAULT_HANDLE]),
  transform: spec('transform', 'Transform', [DEFAULT_HANDLE]),
  webhook: spec('webhook', 'Webhook', ['success', 'error']),
  dial: spec('dial', 'Dial', ['answered', 'no_answer', 'busy', 'failed'], { telephony: true }),
  transfer_to_human: spec('transfer_to_human', 'Transfer to human', ['failed'], {
    telephony: true,
    endsOnSuccess: true,
  }),
  transfer_call: spec('transfer_call', 'Transfer call', ['failed'], { telephony: true, endsOnSuccess: true }),
  end: spec('end', 'End', [], { terminal: true }),
  hangup: spec('hangup', 'Hang up', [], { terminal: true }),
};

function configArray(node: Pick<GraphNode, 'config'>, key: string): unknown[] {
  const config: unknown = node.config;
  if (typeof config !== 'object' || config === null) return [];
  const value = (config as Record<string, unknown>)[key];
  return Array.isArray(value) ? value : [];
}

/** Handles named in the node's config (branch or exit handles), as written, malformed ones skipped. */
export function configHandleNames(node: Pick<GraphNode, 'type' | 'config'>): string[] {
  const nodeSpec = NODE_SPECS[node.type];
  if (nodeSpec === undefined || nodeSpec.configHandles === 'none') return [];
  const list = configArray(node, nodeSpec.configHandles);
  const names: string[] = [];
  for (const item of list) {
    // An agent exit may be written as its bare handle name: `"exits": ["billing"]`.
    const handle =
      typeof item === 'string' && nodeSpec.configHandles === 'exits'
        ? item
        : typeof item === 'object' && item !== null
          ? (item as { handle?: unknown }).handle
          : undefined;
    if (typeof handle === 'string' && handle !== '') names.push(handle);
  }
  return names;
}

/** Every handle the node can leave by: its type's handles, then those its config names. */
export function nodeHandles(node: Pick<GraphNode, 'type' | 'config'>): string[] {
  const nodeSpec = NODE_SPECS[node.type];
  if (nodeSpec === undefined) return [];
  return [...new Set([...nodeSpec.handles, ...configHandleNames(node)])];
}

/**
 * The handle an edge's `source_handle` means on this node: absent or `default` resolve to the
 * node's default handle. Null when the node has no such handle.
 */
export function resolveHandle(
  node: Pick<GraphNode, 'type' | 'config'>,
  sourceHandle: string | undefined,
): string | null {
  const nodeSpec = NODE_SPECS[node.type];
  if (nodeSpec === undefined) return null;
  if (sourceHandle === undefined || sourceHandle === DEFAULT_HANDLE) return nodeSpec.defaultHandle;
  return nodeHandles(node).includes(sourceHandle) ? sourceHandle : null;
}
