// "Tidy up": the layered layout puts each step at its depth from the start, loops included, keeps
// a step's exits in their order across the layer, and never lets two steps overlap.
import { describe, expect, it } from 'vitest';
import { tidyPositions } from './canvas-view';
import { toFlow, toGraph, type Graph } from './graph';
import { layeredLayout, layersOf, type LayoutEdge, type LayoutNode } from './layout';

const box = (id: string, width = 200, height = 80, start = false): LayoutNode => ({
  id,
  width,
  height,
  start,
});
const edge = (source: string, target: string): LayoutEdge => ({ source, target });

/** Pairs of steps whose boxes overlap. */
function overlaps(nodes: LayoutNode[], at: Map<string, { x: number; y: number }>): string[] {
  const found: string[] = [];
  for (const [i, a] of nodes.entries())
    for (const b of nodes.slice(i + 1)) {
      const p = at.get(a.id)!;
      const q = at.get(b.id)!;
      if (p.x < q.x + b.width && q.x < p.x + a.width && p.y < q.y + b.height && q.y < p.y + a.height)
        found.push(`${a.id}/${b.id}`);
    }
  return found;
}

describe('layered layout', () => {
  it('puts each step at its longest depth from the start, loops leaving the depths alone', () => {
    const nodes = ['start', 'ask', 'route', 'sales', 'other', 'retry', 'bye'].map((id) =>
      box(id, 200, 80, id === 'start'),
    );
    const edges = [
      edge('start', 'ask'),
      edge('ask', 'route'),
      edge('route', 'sales'),
      edge('route', 'other'),
      edge('route', 'retry'),
      edge('retry', 'ask'), // a loop back up
      edge('sales', 'bye'),
      edge('other', 'bye'),
      edge('ask', 'bye'), // a short cut: bye still goes below sales and other
      edge('bye', 'bye'), // a step pointing at itself
    ];
    expect(Object.fromEntries(layersOf(nodes, edges))).toEqual({
      start: 0,
      ask: 1,
      route: 2,
      sales: 3,
      other: 3,
      retry: 3,
      bye: 4,
    });
  });

  it('lays layers top to bottom, siblings left to right in exit order, centred, without overlaps', () => {
    const nodes = [box('start', 200, 60, true), box('ask', 240, 120), box('a'), box('b', 300), box('c')];
    const edges = [edge('start', 'ask'), edge('ask', 'a'), edge('ask', 'b'), edge('ask', 'c')];
    const at = layeredLayout(nodes, edges, { layerGap: 50, nodeGap: 20, origin: { x: 100, y: 10 } });
    // The widest layer (a, b, c: 200 + 300 + 200 + 2 gaps = 740) starts at the origin.
    expect(at.get('a')).toEqual({ x: 100, y: 10 + 60 + 50 + 120 + 50 });
    expect(at.get('b')).toEqual({ x: 100 + 220, y: 290 });
    expect(at.get('c')).toEqual({ x: 100 + 540, y: 290 });
    // Single steps sit on the same centre line as that layer's middle.
    const centre = (id: string, w: number) => at.get(id)!.x + w / 2;
    expect(centre('start', 200)).toBe(100 + 370);
    expect(centre('ask', 240)).toBe(100 + 370);
    expect(at.get('start')!.y).toBe(10);
    expect(at.get('ask')!.y).toBe(10 + 60 + 50);
    expect(overlaps(nodes, at)).toEqual([]);
  });

  it('keeps a lane beside the steps of a layer an edge skips, so the edge does not run behind one', () => {
    const nodes = [box('start', 200, 60, true), box('ask'), box('ok'), box('bye')];
    const edges = [edge('start', 'ask'), edge('ask', 'ok'), edge('ask', 'bye'), edge('ok', 'bye')];
    const at = layeredLayout(nodes, edges, { nodeGap: 40 });
    // ask → bye skips ok's layer: the straight way between their middles stays clear of ok.
    const middle = (id: string) => at.get(id)!.x + 100;
    const [left, right] = [middle('ask'), middle('bye')].sort((a, b) => a - b);
    const ok = at.get('ok')!.x;
    expect(right! < ok || left! > ok + 200).toBe(true);
    expect(at.get('bye')!.y).toBeGreaterThan(at.get('ok')!.y);
    expect(overlaps(nodes, at)).toEqual([]);
    expect(Math.min(...[...at.values()].map((p) => p.x))).toBe(0);
  });

  it('lays left to right when asked, the same layers on the other axis', () => {
    const nodes = [box('start', 200, 60, true), box('x'), box('y')];
    const edges = [edge('start', 'x'), edge('start', 'y')];
    const at = layeredLayout(nodes, edges, { direction: 'LR', layerGap: 50, nodeGap: 20 });
    expect(at.get('start')!.x).toBe(0);
    expect(at.get('x')!.x).toBe(250);
    expect(at.get('y')!.x).toBe(250);
    expect(at.get('y')!.y - at.get('x')!.y).toBe(100);
    expect(overlaps(nodes, at)).toEqual([]);
  });

  it('uncrosses edges: a step shared by both sides moves off the side of a step only one leads to', () => {
    // Met in the order n, m (a's exits), but n is also b's: m under a, n towards b.
    const nodes = [box('s', 200, 80, true), box('a'), box('b'), box('n'), box('m')];
    const edges = [edge('s', 'a'), edge('s', 'b'), edge('a', 'n'), edge('a', 'm'), edge('b', 'n')];
    const at = layeredLayout(nodes, edges);
    expect(at.get('a')!.x).toBeLessThan(at.get('b')!.x);
    expect(at.get('m')!.x).toBeLessThan(at.get('n')!.x);
  });

  it('places every step of any graph without overlaps: islands, unknown targets, no start', () => {
    for (let seed = 1; seed <= 30; seed++) {
      let r = seed;
      const rand = (n: number) => ((r = (r * 1103515245 + 12345) % 2 ** 31), r % n);
      const nodes = Array.from({ length: 4 + rand(12) }, (_, i) =>
        box(`n${i}`, 150 + rand(120), 50 + rand(100), seed % 3 === 0 ? false : i === 0),
      );
      const edges = Array.from({ length: rand(20) }, () =>
        edge(`n${rand(nodes.length + 1)}`, `n${rand(nodes.length)}`),
      );
      const at = layeredLayout(nodes, edges);
      expect([...at.keys()].sort(), `seed ${seed}`).toEqual(nodes.map((n) => n.id).sort());
      expect(overlaps(nodes, at), `seed ${seed}`).toEqual([]);
      expect(Math.min(...[...at.values()].map((p) => p.x)), `seed ${seed}`).toBe(0);
    }
  });
});

describe('tidy up in the editor', () => {
  it('orders a step’s exits as its handles are, keeps the graph’s corner, and saves positions', () => {
    const graph: Graph = {
      nodes: [
        { id: 'bye', type: 'end', position: { x: 900, y: 40 } },
        { id: 'ask', type: 'dtmf', config: { save_to_variable: 'x' }, position: { x: 500, y: 600 } },
        { id: 'late', type: 'speak', config: { text: 'Too slow' }, position: { x: 120, y: 300 } },
        { id: 'ok', type: 'speak', config: { text: 'Thanks' }, position: { x: 700, y: 200 } },
        { id: 'start', type: 'start', position: { x: 300, y: 900 } },
      ],
      edges: [
        { source: 'ask', source_handle: 'timeout', target: 'late' },
        { source: 'ask', source_handle: 'success', target: 'ok' },
        { source: 'start', target: 'ask' },
        { source: 'ok', target: 'bye' },
        { source: 'late', target: 'bye' },
      ],
    };
    const flow = toFlow(graph);
    const placed = tidyPositions(flow.nodes, flow.edges);
    const moved = flow.nodes.map((n) => ({ ...n, position: placed.get(n.id)! }));
    const saved = toGraph(moved, flow.edges, graph);
    const pos = Object.fromEntries(saved.nodes.map((n) => [n.id, n.position!]));
    // success is the dtmf step's first exit, timeout its second: left to right in that order.
    expect(pos.ok!.x).toBeLessThan(pos.late!.x);
    expect(pos.ok!.y).toBe(pos.late!.y);
    expect([pos.start!.y, pos.ask!.y, pos.ok!.y, pos.bye!.y]).toEqual(
      [...[pos.start!.y, pos.ask!.y, pos.ok!.y, pos.bye!.y]].sort((a, b) => a - b),
    );
    expect(new Set([pos.start!.y, pos.ask!.y, pos.ok!.y, pos.bye!.y]).size).toBe(4);
    // The top-left corner of the graph stays where it was (x 120, y 40).
    expect(Math.min(...Object.values(pos).map((p) => p.x))).toBe(120);
    expect(pos.start!.y).toBe(40);
    // Only positions changed.
    expect(saved.edges).toEqual(graph.edges);
    expect(saved.nodes.map(({ position: _p, ...rest }) => rest)).toEqual(
      graph.nodes.map(({ position: _p, ...rest }) => rest),
    );
  });
});
