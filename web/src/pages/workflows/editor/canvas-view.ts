// What the canvas shows on top of the graph: each step's findings, the step numbers of a simulated
// run and the step a live conversation is on, and the edges that run took; and where a step added
// from the keyboard goes so that it hides no other; and where "Tidy up" puts every step.
import { findingsByNode } from './findings';
import { exitsOf, type Finding, type LinkEdge, type StepNode } from './graph';
import { layeredLayout } from './layout';
import { DEFAULT_HANDLE } from './node-catalog';

export function decorateNodes(
  nodes: StepNode[],
  findings: Finding[],
  path: string[],
  liveNode: string | null,
): StepNode[] {
  const byNode = findingsByNode(findings);
  const visits = new Map<string, number[]>();
  path.forEach((id, i) => visits.set(id, [...(visits.get(id) ?? []), i + 1]));
  return nodes.map((n) => ({
    ...n,
    className: liveNode === n.id ? 'is-live' : undefined,
    data: {
      ...n.data,
      errors: byNode.get(n.id)?.filter((f) => f.severity !== 'warning'),
      warnings: byNode.get(n.id)?.filter((f) => f.severity === 'warning'),
      visited: visits.get(n.id),
    },
  }));
}

/** Edges between consecutive steps of the path are drawn as taken. */
export function decorateEdges(edges: LinkEdge[], path: string[]): LinkEdge[] {
  const steps = new Set(path.slice(1).map((id, i) => `${path[i]}->${id}`));
  return edges.map((e) =>
    steps.has(`${e.source}->${e.target}`) ? { ...e, animated: true, className: 'edge-visited' } : e,
  );
}

/** The first spot at or right of `p` that no step covers, so a step added by keyboard never hides another. */
export function freeSpot(p: { x: number; y: number }, nodes: StepNode[]): { x: number; y: number } {
  const spot = { ...p };
  const taken = (q: { x: number; y: number }) =>
    nodes.some((n) => Math.abs(n.position.x - q.x) < 240 && Math.abs(n.position.y - q.y) < 150);
  for (let i = 0; i < 50 && taken(spot); i++) spot.x += 260;
  return spot;
}

/** A step's size as drawn, or about that before the canvas has measured it. */
const sizeOf = (n: StepNode) => ({ width: n.measured?.width ?? 200, height: n.measured?.height ?? 90 });

/**
 * "Tidy up": every step's new position, laid out by depth from the start, top to bottom (the way
 * the steps' handles point), a step's exits side by side in their order, the graph's top-left corner
 * kept where it was.
 */
export function tidyPositions(nodes: StepNode[], edges: LinkEdge[]): Map<string, { x: number; y: number }> {
  if (nodes.length === 0) return new Map();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const exitRank = (e: LinkEdge) => {
    const source = byId.get(e.source);
    return source ? exitsOf(source.data.node).indexOf(e.sourceHandle ?? DEFAULT_HANDLE) : 0;
  };
  const ordered = edges.map((e, i) => ({ e, i })).sort((a, b) => exitRank(a.e) - exitRank(b.e) || a.i - b.i);
  return layeredLayout(
    nodes.map((n) => ({ id: n.id, ...sizeOf(n), start: n.data.node.type === 'start' })),
    ordered.map(({ e }) => ({ source: e.source, target: e.target })),
    {
      direction: 'TB',
      origin: {
        x: Math.round(Math.min(...nodes.map((n) => n.position.x))),
        y: Math.round(Math.min(...nodes.map((n) => n.position.y))),
      },
    },
  );
}
