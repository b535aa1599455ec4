// The words the graph expects a listening node's user to say, read from the conditions that decide
// what happens after it: an agent whose exit leads to `condition` branches such as
// `contains(lower(reply), 'billing')` or `choice == "sales"` expects "billing" and "sales". Speech
// recognisers with grammars (the embedded one) listen for them (node-context.ts passes them on).
//
// Followed from the node: every edge, through nodes that only move values (set_variables,
// transform, condition itself), up to three steps; string literals of condition expressions that
// are words (letters, spaces, apostrophes; at most four words) are kept. Cached per graph object,
// as the edge index is.
import { buildEdgeIndex } from './graph-walk.js';
import type { WorkflowGraph } from './workflow-deps.js';

const PASS_THROUGH = new Set(['set_variables', 'transform', 'condition']);
const MAX_STEPS = 3;
const LITERAL = /'([^'\\]*)'|"([^"\\]*)"/g;
const WORDS = /^[a-z][a-z' ]*$/i;

const cache = new WeakMap<WorkflowGraph, Map<string, string[]>>();

export function expectedWords(graph: WorkflowGraph, nodeId: string): string[] {
  let perNode = cache.get(graph);
  if (!perNode) cache.set(graph, (perNode = new Map()));
  let words = perNode.get(nodeId);
  if (!words) perNode.set(nodeId, (words = collect(graph, nodeId)));
  return words;
}

function collect(graph: WorkflowGraph, nodeId: string): string[] {
  const edges = buildEdgeIndex(graph);
  const words = new Set<string>();
  const seen = new Set<string>([nodeId]);
  let frontier = [nodeId];
  for (let step = 0; step < MAX_STEPS && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const target of edges.get(id)?.values() ?? []) {
        if (seen.has(target.id) || !PASS_THROUGH.has(target.type)) continue;
        seen.add(target.id);
        next.push(target.id);
        if (target.type === 'condition') for (const w of conditionWords(target.config)) words.add(w);
      }
    }
    frontier = next;
  }
  return [...words];
}

function conditionWords(config: Record<string, unknown>): string[] {
  const branches = Array.isArray(config.branches) ? config.branches : [];
  const out: string[] = [];
  for (const b of branches as { expression?: unknown }[]) {
    if (typeof b?.expression !== 'string') continue;
    for (const m of b.expression.matchAll(LITERAL)) {
      const text = (m[1] ?? m[2] ?? '').trim();
      if (text && WORDS.test(text) && text.split(/\s+/).length <= 4) out.push(text.toLowerCase());
    }
  }
  return out;
}
