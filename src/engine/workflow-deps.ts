// The engine's one doorway into src/workflow (pure graph code shared with the API), so a change of
// names there touches one file here.
export type { GraphEdge, GraphNode, NodeType, WorkflowGraph } from '../workflow/graph.types.js';
export { isSecretVariable, redactVariables } from '../workflow/secrets.js';
export { renderTemplate } from '../workflow/templates.js';
export {
  compileExpression,
  evaluateExpression,
  isTruthy,
  type CompiledExpression,
} from '../workflow/expression.js';
export { applyTransform } from '../workflow/transform.js';
export { extractDigits } from '../workflow/spoken-digits.js';
export { lookupPath } from '../workflow/paths.js';
export { DEFAULT_HANDLE, NODE_SPECS, resolveHandle } from '../workflow/node-specs.js';
