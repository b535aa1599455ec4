// The workflow validator: pure checks over a graph of unknown shape, returning findings as the
// API's validate and publish responses carry them (docs/workflow-nodes.md, "Validation"). Each family of rules lives in its
// own file; this one fixes their order (envelope and edges, structure, configs, variables).
//
// Field convention (docs/workflow-nodes.md, "Validation"): node findings name the config key as
// written, bare (`save_to_variable`, `branches[0].expression`, `variables.greeting`); problems of
// the node itself name `id`, `type`, `config` or `position`, or '' for the node as a whole; edge
// findings name `edges[i].source|target|source_handle` with the source node's id (or '' when the
// source does not exist); graph-level problems use `node_id: ''` and the top-level path
// (`nodes`, `edges`, `nodes[2].id`, `inputs[0]`).

import { checkConfigs } from './validate-config.js';
import { checkEnvelope } from './validate-envelope.js';
import { Findings, type Finding, type ValidationContext } from './validate-shared.js';
import { checkStructure } from './validate-structure.js';
import { checkVariables } from './validate-variables.js';

export interface ValidationResult {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

export type { Finding, ValidationContext };

export function validateGraph(graph: unknown, context: ValidationContext): ValidationResult {
  const findings = new Findings();
  const checked = checkEnvelope(graph, findings);
  if (Array.isArray((graph as { nodes?: unknown } | null)?.nodes)) {
    checkStructure(checked, findings);
  }
  checkConfigs(checked.nodes, context ?? {}, findings);
  checkVariables(checked, findings);
  return { valid: findings.errors.length === 0, errors: findings.errors, warnings: findings.warnings };
}
