// Where a node's config holds templates, expressions and the names of variables it writes, each
// with the field path that findings use (bare config keys: `text`, `branches[0].expression`,
// `variables.greeting`). Tolerant of malformed configs: anything of the wrong shape is skipped,
// because the validator calls these before it knows the config is well formed.

import { expressionVariables } from './expression.js';
import type { GraphNode } from './graph.types.js';
import { templateVariables } from './templates.js';

export interface FieldValue {
  /** Path inside `config`, as written in findings. */
  field: string;
  value: string;
}

type NodeLike = Pick<GraphNode, 'type' | 'config'>;

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `base.key`, or `base["odd key"]` when the key would be ambiguous after a dot. */
export function fieldPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return SIMPLE_KEY.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function strings(config: Record<string, unknown>, keys: readonly string[]): FieldValue[] {
  const out: FieldValue[] = [];
  for (const key of keys) {
    const value = config[key];
    if (typeof value === 'string') out.push({ field: key, value });
  }
  return out;
}

function stringEntries(config: Record<string, unknown>, key: string): FieldValue[] {
  const map = record(config[key]);
  if (map === null) return [];
  return Object.entries(map)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([name, value]) => ({ field: fieldPath(key, name), value }));
}

function listFields(config: Record<string, unknown>, key: string, inner: string): FieldValue[] {
  const list = config[key];
  if (!Array.isArray(list)) return [];
  const out: FieldValue[] = [];
  list.forEach((item, index) => {
    const value = record(item)?.[inner];
    if (typeof value === 'string') out.push({ field: `${fieldPath(key, index)}.${inner}`, value });
  });
  return out;
}

/** String leaves of a JSON body (sent as JSON with each leaf rendered), or the body string itself. */
function leaves(value: unknown, field: string, depth = 0): FieldValue[] {
  if (typeof value === 'string') return [{ field, value }];
  if (depth > 32 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, fieldPath(field, i), depth + 1));
  return Object.entries(value).flatMap(([key, item]) => leaves(item, fieldPath(field, key), depth + 1));
}

/** Config fields rendered as templates. */
export function nodeTemplates(node: NodeLike): FieldValue[] {
  const config = record(node.config);
  if (config === null) return [];
  switch (node.type) {
    case 'speak':
      return strings(config, ['text']);
    case 'agent':
      return strings(config, ['instructions', 'greeting']);
    case 'dtmf':
      return strings(config, ['prompt']);
    case 'set_variables':
      return stringEntries(config, 'variables');
    case 'transform':
      return strings(config, ['input']);
    case 'webhook': {
      const auth = record(config.auth);
      const token =
        auth !== null && typeof auth.token === 'string' ? [{ field: 'auth.token', value: auth.token }] : [];
      return [
        ...strings(config, ['url']),
        ...stringEntries(config, 'headers'),
        ...leaves(config.body, 'body'),
        ...token,
      ];
    }
    case 'dial':
      return strings(config, ['to', 'from']);
    case 'transfer_to_human':
      return strings(config, ['destination', 'announcement']);
    case 'transfer_call':
      return strings(config, ['destination']);
    default:
      return [];
  }
}

/** Config fields holding condition expressions. */
export function nodeExpressions(node: NodeLike): FieldValue[] {
  const config = record(node.config);
  if (config === null || node.type !== 'condition') return [];
  return listFields(config, 'branches', 'expression');
}

/** Variables read by name rather than through a template (the webhook's auth secret). */
function directReads(node: NodeLike, config: Record<string, unknown>): FieldValue[] {
  if (node.type !== 'webhook') return [];
  const auth = record(config.auth);
  if (auth === null || typeof auth.secret_variable !== 'string') return [];
  return [{ field: 'auth.secret_variable', value: auth.secret_variable }];
}

/** Variables a node type always writes as it leaves (field '': no config key names them). */
export const FIXED_WRITES: Readonly<Partial<Record<GraphNode['type'], readonly string[]>>> = {
  webhook: ['webhook_status', 'webhook_error'],
  transfer_to_human: ['transfer_failure_reason'],
  transfer_call: ['transfer_failure_reason'],
};

/** Each variable the node reads, with the field that reads it (one entry per field and name). */
export function nodeVariableReads(node: NodeLike): FieldValue[] {
  const config = record(node.config);
  if (config === null) return [];
  const out: FieldValue[] = [];
  for (const { field, value } of nodeTemplates(node)) {
    for (const name of templateVariables(value)) out.push({ field, value: name });
  }
  for (const { field, value } of nodeExpressions(node)) {
    for (const name of expressionVariables(value)) out.push({ field, value: name });
  }
  return [...out, ...directReads(node, config)];
}

/** Each variable the node writes, with the field that names it ('' for fixed outputs). */
export function nodeVariableWrites(node: NodeLike): FieldValue[] {
  const fixed = (FIXED_WRITES[node.type] ?? []).map((name) => ({ field: '', value: name }));
  return [...configWrites(node), ...fixed];
}

function configWrites(node: NodeLike): FieldValue[] {
  const config = record(node.config);
  if (config === null) return [];
  switch (node.type) {
    case 'dtmf':
    case 'transform':
      return strings(config, ['save_to_variable']);
    case 'dial':
      return strings(config, ['save_call_id_to', 'save_answered_by_to']);
    case 'set_variables':
      return keysOf(config, 'variables');
    case 'webhook':
      return [...keysOf(config, 'response_mapping'), ...strings(config, ['save_response_to'])];
    case 'agent':
      return listFields(config, 'outputs', 'variable');
    default:
      return [];
  }
}

function keysOf(config: Record<string, unknown>, key: string): FieldValue[] {
  const map = record(config[key]);
  return map === null ? [] : Object.keys(map).map((name) => ({ field: fieldPath(key, name), value: name }));
}

export function variablesRead(node: NodeLike): string[] {
  return [...new Set(nodeVariableReads(node).map((read) => read.value))];
}

export function variablesWritten(node: NodeLike): string[] {
  return [...new Set(nodeVariableWrites(node).map((write) => write.value))];
}
