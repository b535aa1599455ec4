// Variable rules (warnings): a template or expression reading a variable that nothing sets, a
// `{{ … }}` that is not a variable path, a node overwriting a system variable, and a secret read
// where it would be spoken. "Set" means a system variable, a name in the graph's `inputs`, or a
// name some node writes anywhere in the graph (order along paths is not checked).

import type { GraphNode } from './graph.types.js';
import { nodeTemplates, nodeVariableReads, nodeVariableWrites } from './node-specs.js';
import { isSecretVariable } from './secrets.js';
import { isSystemVariable } from './system-variables.js';
import { parseTemplate } from './templates.js';
import type { CheckedGraph } from './validate-envelope.js';
import type { Findings } from './validate-shared.js';

/** Config fields whose rendered text is spoken to the caller or to the human. */
const SPOKEN_FIELDS: ReadonlySet<string> = new Set([
  'speak:text',
  'dtmf:prompt',
  'agent:greeting',
  'transfer_to_human:announcement',
]);

export function checkVariables(graph: CheckedGraph, out: Findings): void {
  const set = new Set<string>(graph.inputs);
  for (const node of graph.nodes) {
    for (const write of nodeVariableWrites(node)) set.add(write.value);
  }
  for (const node of graph.nodes) {
    checkPlaceholders(node, out);
    const reported = new Set<string>();
    for (const { field, value: name } of nodeVariableReads(node)) {
      const key = `${field}\u0000${name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      if (!set.has(name) && !isSystemVariable(name)) {
        out.warning(
          node.id,
          field,
          `Variable '${name}' is read here but nothing sets it: no node writes it, it is not a system variable and not listed in \`inputs\`.`,
        );
      }
      if (isSecretVariable(name) && SPOKEN_FIELDS.has(`${node.type}:${field}`)) {
        out.warning(node.id, field, `Secret variable '${name}' would be spoken aloud.`);
      }
    }
    for (const { field, value: name } of nodeVariableWrites(node)) {
      if (isSystemVariable(name)) {
        out.warning(
          node.id,
          field,
          `'${name}' is a system variable; writing it hides the value the engine set.`,
        );
      }
    }
  }
}

function checkPlaceholders(node: GraphNode, out: Findings): void {
  for (const { field, value } of nodeTemplates(node)) {
    for (const placeholder of parseTemplate(value)) {
      if (placeholder.path === null) {
        out.warning(
          node.id,
          field,
          `${placeholder.raw} is not a variable reference (a name or dotted path) and is kept as written.`,
        );
      }
    }
  }
}
