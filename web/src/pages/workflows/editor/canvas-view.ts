// What the canvas shows on top of the graph: each step's findings, the step numbers of a simulated
// run and the step a live conversation is on, and the edges that run took; and where a step added
// from the keyboard goes so that it hides no other.
import { findingsByNode } from './findings';
import type { Finding, LinkEdge, StepNode } from './graph';

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
