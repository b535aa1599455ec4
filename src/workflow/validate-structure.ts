// Graph-shape rules over the checked nodes and edges: exactly one `start`; every node other than
// `end`/`hangup` has a way out (error); nodes no path from `start` reaches, handles with no edge
// and nodes from which no path ever finishes (only loops) are warnings.
//
//   start ──► ask ──success──► bye        `ask.timeout` unused: warning
//                                          `lost` has no way out: error, unreachable: warning
//   lost      a ◄──► b                     a, b never finish: warning

import { NODE_SPECS, configHandleNames, nodeHandles } from './node-specs.js';
import type { GraphNode } from './graph.types.js';
import type { CheckedEdge, CheckedGraph } from './validate-envelope.js';
import type { Findings } from './validate-shared.js';

export function checkStructure(graph: CheckedGraph, out: Findings): void {
  const starts = graph.nodes.filter((node) => node.type === 'start');
  if (starts.length === 0) out.error('', 'nodes', 'The workflow needs one `start` node.');
  for (const extra of starts.slice(1)) {
    out.error(
      extra.id,
      'type',
      `Only one \`start\` node is allowed; '${starts[0].id}' is already the start.`,
    );
  }
  const outgoing = new Map<string, CheckedEdge[]>();
  for (const edge of graph.edges) {
    const list = outgoing.get(edge.source) ?? [];
    list.push(edge);
    outgoing.set(edge.source, list);
  }
  const reached = starts.length > 0 ? reachableFrom(starts[0].id, outgoing) : new Set<string>();
  const finishing = canFinish(graph);
  for (const node of graph.nodes) {
    const edges = outgoing.get(node.id) ?? [];
    const nodeSpec = NODE_SPECS[node.type];
    if (!nodeSpec.terminal && edges.length === 0) {
      out.error(node.id, '', noWayOut(node));
    } else {
      checkUnusedHandles(node, edges, out);
    }
    if (starts.length > 0 && !reached.has(node.id)) {
      out.warning(node.id, '', `No path from '${starts[0].id}' reaches this node.`);
    } else if (edges.length > 0 && !finishing.has(node.id)) {
      out.warning(
        node.id,
        '',
        'Every path from this node loops without reaching an `end`, `hangup` or transfer node; only a hang-up or a limit ends the execution.',
      );
    }
  }
}

function noWayOut(node: GraphNode): string {
  const handles = nodeHandles(node);
  if (NODE_SPECS[node.type].endsOnSuccess) {
    return `Node has no way out: connect its '${handles.join("', '")}' handle so a failed transfer can continue, or end the flow there.`;
  }
  return `Node has no way out: connect at least one of its handles (${handles.join(', ')}) or end the flow with an \`end\` or \`hangup\` node.`;
}

function checkUnusedHandles(node: GraphNode, edges: readonly CheckedEdge[], out: Findings): void {
  const used = new Set(edges.map((edge) => edge.handle));
  const fromConfig = configHandleNames(node);
  const listKey = NODE_SPECS[node.type].configHandles;
  for (const handle of nodeHandles(node)) {
    if (used.has(handle)) continue;
    const index = fromConfig.indexOf(handle);
    const field = index >= 0 && listKey !== 'none' ? configHandleField(node, listKey, handle) : '';
    out.warning(node.id, field, `Handle '${handle}' has no edge; an execution that leaves by it fails.`);
  }
}

/** `branches[2].handle` (or `exits[1]` for an exit written as a bare name): where the config names it. */
function configHandleField(node: GraphNode, listKey: 'branches' | 'exits', handle: string): string {
  const list: unknown = node.config[listKey];
  if (!Array.isArray(list)) return '';
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (item === handle) return `${listKey}[${i}]`;
    if (typeof item === 'object' && item !== null && (item as { handle?: unknown }).handle === handle) {
      return `${listKey}[${i}].handle`;
    }
  }
  return '';
}

/** Nodes with a path to one that can finish the execution (end, hangup, a transfer). */
function canFinish(graph: CheckedGraph): Set<string> {
  const incoming = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge.source);
    incoming.set(edge.target, list);
  }
  const finishers = graph.nodes.filter(
    (n) => NODE_SPECS[n.type].terminal || NODE_SPECS[n.type].endsOnSuccess,
  );
  const seen = new Set(finishers.map((n) => n.id));
  const queue = [...seen];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    for (const source of incoming.get(id) ?? []) {
      if (!seen.has(source)) {
        seen.add(source);
        queue.push(source);
      }
    }
  }
  return seen;
}

function reachableFrom(startId: string, outgoing: ReadonlyMap<string, CheckedEdge[]>): Set<string> {
  const seen = new Set<string>([startId]);
  const queue = [startId];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    for (const edge of outgoing.get(id) ?? []) {
      if (!seen.has(edge.target)) {
        seen.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  return seen;
}
