// What the validator's rule files share: the finding and its collector, the validation context,
// common patterns. validate.ts runs the rule files, so they take these from here, not from it.

import { HANDLE_NAME_PATTERN, VARIABLE_NAME_PATTERN } from './graph-schema.js';

/** One problem found, as the validate and publish responses carry it. */
export interface Finding {
  node_id: string;
  field: string;
  message: string;
}

/** What the validator may know beyond the graph itself. */
export interface ValidationContext {
  /** Agents of the workflow's project; undefined skips the existence check of agent nodes. */
  agentIds?: ReadonlySet<string>;
}

export const VARIABLE_NAME = new RegExp(VARIABLE_NAME_PATTERN);
export const HANDLE_NAME = new RegExp(HANDLE_NAME_PATTERN);

/** Collects findings in the order rules report them. */
export class Findings {
  readonly errors: Finding[] = [];
  readonly warnings: Finding[] = [];

  error(nodeId: string, field: string, message: string): void {
    this.errors.push({ node_id: nodeId, field, message });
  }

  warning(nodeId: string, field: string, message: string): void {
    this.warnings.push({ node_id: nodeId, field, message });
  }
}
