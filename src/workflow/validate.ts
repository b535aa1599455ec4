// The workflow validator: pure checks over a graph of unknown shape, returning findings as the
// API's validate and publish responses carry them (spec 2.4). Each family of rules lives in its
// own file; this one fixes their order. Field convention: node findings name the bare config key
// as written (`save_to_variable`, `branches[0].expression`), node envelope problems name the node
// key (`id`, `type`, `config`), edge findings name `edges[i].key`, graph envelope findings name
// the top-level path (`nodes`, `nodes[2]`) with `node_id: ''`.

import { checkEnvelope } from './validate-envelope.js';

export interface Finding {
  node_id: string;
  field: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

export interface ValidationContext {
  /** Agents of the workflow's project; undefined skips the existence check of agent nodes. */
  agentIds?: ReadonlySet<string>;
}

export function validateGraph(graph: unknown, _context: ValidationContext): ValidationResult {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  checkEnvelope(graph, errors);
  return { valid: errors.length === 0, errors, warnings };
}
