// What the editor knows about each of the 13 node types without the server: its label, a one-line
// purpose for the palette, its fixed exits (handles) and which exit an edge without `source_handle`
// means, and whether the config adds exits (condition branches, agent exits). It mirrors the
// engine's node specs; graph.test.ts fails when the two drift.

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

/** The handle name an edge may use to mean "the default handle". */
export const DEFAULT_HANDLE = 'default';

export interface NodeKind {
  type: NodeType;
  label: string;
  purpose: string;
  /** Palette group, as Studio-style editors group their widgets. */
  group: 'Flow' | 'Talk' | 'Logic' | 'Data' | 'Telephony';
  handles: readonly string[];
  defaultHandle: string | null;
  configHandles: 'none' | 'branches' | 'exits';
}

function kind(
  type: NodeType,
  label: string,
  group: NodeKind['group'],
  purpose: string,
  handles: readonly string[],
  configHandles: NodeKind['configHandles'] = 'none',
): NodeKind {
  return { type, label, group, purpose, handles, defaultHandle: handles[0] ?? null, configHandles };
}

export const NODE_KINDS: Readonly<Record<NodeType, NodeKind>> = {
  start: kind('start', 'Start', 'Flow', 'Where every call or session begins', [DEFAULT_HANDLE]),
  speak: kind('speak', 'Speak', 'Talk', 'Say a text (a template) to the caller', [DEFAULT_HANDLE]),
  agent: kind(
    'agent',
    'Agent',
    'Talk',
    'An LLM agent converses until it takes an exit',
    [DEFAULT_HANDLE],
    'exits',
  ),
  dtmf: kind('dtmf', 'Collect DTMF', 'Talk', 'Prompt for keypad digits and save them', [
    'success',
    'timeout',
  ]),
  condition: kind(
    'condition',
    'Condition',
    'Logic',
    'Branch on expressions, in order',
    [DEFAULT_HANDLE],
    'branches',
  ),
  set_variables: kind('set_variables', 'Set variables', 'Data', 'Assign workflow variables', [
    DEFAULT_HANDLE,
  ]),
  transform: kind('transform', 'Transform', 'Data', 'Reshape a text into a variable', [DEFAULT_HANDLE]),
  webhook: kind('webhook', 'Webhook', 'Data', 'Call an HTTP API and map its answer', ['success', 'error']),
  dial: kind('dial', 'Dial', 'Telephony', 'Place an outbound leg', [
    'answered',
    'no_answer',
    'busy',
    'failed',
  ]),
  transfer_to_human: kind(
    'transfer_to_human',
    'Transfer to human',
    'Telephony',
    'Warm transfer with an announcement',
    ['failed'],
  ),
  transfer_call: kind('transfer_call', 'Transfer call', 'Telephony', 'Blind transfer (SIP REFER)', [
    'failed',
  ]),
  end: kind('end', 'End', 'Flow', 'Finish the workflow', []),
  hangup: kind('hangup', 'Hang up', 'Flow', 'Hang up the call', []),
};

export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && (NODE_TYPES as readonly string[]).includes(value);
}

/** Exits named in the config: condition `branches[].handle`, agent `exits[].handle` (or bare names). */
export function configHandleNames(type: string, config: unknown): string[] {
  const k = isNodeType(type) ? NODE_KINDS[type] : undefined;
  if (!k || k.configHandles === 'none' || typeof config !== 'object' || config === null) return [];
  const list = (config as Record<string, unknown>)[k.configHandles];
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  for (const item of list) {
    const handle =
      typeof item === 'string' && k.configHandles === 'exits'
        ? item
        : typeof item === 'object' && item !== null
          ? (item as { handle?: unknown }).handle
          : undefined;
    if (typeof handle === 'string' && handle !== '') names.push(handle);
  }
  return names;
}

/** Every exit of a node: its type's handles, then those its config names, without repeats. */
export function nodeHandles(type: string, config: unknown): string[] {
  const k = isNodeType(type) ? NODE_KINDS[type] : undefined;
  if (!k) return [];
  return [...new Set([...k.handles, ...configHandleNames(type, config)])];
}

/** The exit an edge's `source_handle` means: absent or `default` is the type's default handle. */
export function resolveHandle(
  type: string,
  config: unknown,
  sourceHandle: string | undefined,
): string | null {
  const k = isNodeType(type) ? NODE_KINDS[type] : undefined;
  if (!k) return null;
  if (sourceHandle === undefined || sourceHandle === DEFAULT_HANDLE) return k.defaultHandle;
  return nodeHandles(type, config).includes(sourceHandle) ? sourceHandle : null;
}

/** Whether a node of this type can be entered (every type but start). */
export function hasInput(type: string): boolean {
  return type !== 'start';
}

/** A readable name for a handle on the canvas ("no_answer" → "no answer"). */
export function handleLabel(handle: string): string {
  return handle === DEFAULT_HANDLE ? 'next' : handle.replace(/_/g, ' ');
}
