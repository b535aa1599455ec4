// Helpers shared by the validator's rule files: the finding collector and common patterns.

import { HANDLE_NAME_PATTERN, VARIABLE_NAME_PATTERN } from './graph-schema.js';
import type { Finding } from './validate.js';

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
