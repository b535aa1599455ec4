// "Tidy up": a small layered layout of the workflow graph. Each step goes to a layer by its depth
// (the longest way to it from a start, so every edge runs forward and a shared end sits below all
// that lead to it); loops are found by a depth-first walk and do not deepen anything. Within a
// layer, steps start in the order the walk met them (a step's exits in their order) and are then
// sorted a few times by where their neighbours sit, which uncrosses most edges. An edge that skips
// layers keeps a lane as wide as its source step in each layer it passes, sorted like a step, so it
// runs beside the steps of those layers rather than behind one. Layers stack along the flow's
// direction and steps sit side by side across it, each layer centred, spaced by the steps' own
// sizes plus a gap, so no two steps overlap.

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  /** A start step: the walk begins there. */
  start?: boolean;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export interface LayoutOptions {
  /** TB: layers top to bottom (the editor's handles: in on top, exits below); LR: left to right. */
  direction?: 'TB' | 'LR';
  /** Space between layers. */
  layerGap?: number;
  /** Space between steps of one layer. */
  nodeGap?: number;
  /** Where the top-left corner of the laid-out graph goes. */
  origin?: { x: number; y: number };
}

type Adjacency = Map<string, string[]>;

function adjacency(nodes: LayoutNode[], edges: LayoutEdge[]): { out: Adjacency; inn: Adjacency } {
  const out: Adjacency = new Map(nodes.map((n) => [n.id, []]));
  const inn: Adjacency = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) {
    if (!out.has(e.source) || !out.has(e.target) || e.source === e.target) continue;
    out.get(e.source)!.push(e.target);
    inn.get(e.target)!.push(e.source);
  }
  return { out, inn };
}

/** Depth-first from the starts (then steps nothing leads to, then the rest): visit order and back edges. */
function walk(nodes: LayoutNode[], out: Adjacency, inn: Adjacency) {
  const order: string[] = [];
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const roots = [
    ...nodes.filter((n) => n.start),
    ...nodes.filter((n) => !n.start && inn.get(n.id)!.length === 0),
    ...nodes,
  ];
  for (const root of roots) {
    if (state.has(root.id)) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: root.id, next: 0 }];
    state.set(root.id, 'open');
    order.push(root.id);
    while (stack.length) {
      const top = stack.at(-1)!;
      const target = out.get(top.id)![top.next++];
      if (target === undefined) {
        state.set(top.id, 'done');
        stack.pop();
      } else if (state.get(target) === 'open') back.add(`${top.id}\u0000${target}`);
      else if (!state.has(target)) {
        state.set(target, 'open');
        order.push(target);
        stack.push({ id: target, next: 0 });
      }
    }
  }
  return { order, back };
}

/** Each step's layer: the longest forward way to it (loops' back edges left out). */
export function layersOf(nodes: LayoutNode[], edges: LayoutEdge[]): Map<string, number> {
  const { out, inn } = adjacency(nodes, edges);
  const { order, back } = walk(nodes, out, inn);
  const forward = (from: string, to: string) => !back.has(`${from}\u0000${to}`);
  const pending = new Map(order.map((id) => [id, inn.get(id)!.filter((s) => forward(s, id)).length]));
  const layer = new Map(order.map((id) => [id, 0]));
  const ready = order.filter((id) => pending.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    for (const t of out.get(id)!) {
      if (!forward(id, t)) continue;
      layer.set(t, Math.max(layer.get(t)!, layer.get(id)! + 1));
      pending.set(t, pending.get(t)! - 1);
      if (pending.get(t) === 0) ready.push(t);
    }
  }
  return layer;
}

/** The steps of each layer in order: first as met, then by their neighbours' places (a few sweeps). */
function orderLayers(nodes: LayoutNode[], edges: LayoutEdge[], layer: Map<string, number>): string[][] {
  const { out, inn } = adjacency(nodes, edges);
  const { order } = walk(nodes, out, inn);
  const layers: string[][] = [];
  for (const id of order) (layers[layer.get(id)!] ??= []).push(id);
  const place = new Map<string, number>();
  const measure = () =>
    layers.forEach((ids) => ids.forEach((id, i) => place.set(id, (i + 0.5) / ids.length)));
  measure();
  const sweep = (ids: string[], neighbours: Adjacency, towards: number) => {
    const centre = (id: string) => {
      const near = neighbours.get(id)!.filter((n) => layer.get(n) === towards);
      return near.length ? near.reduce((sum, n) => sum + place.get(n)!, 0) / near.length : place.get(id)!;
    };
    const keyed = ids.map((id, i) => ({ id, i, key: centre(id) }));
    keyed.sort((a, b) => a.key - b.key || a.i - b.i);
    return keyed.map((k) => k.id);
  };
  for (let round = 0; round < 4; round++) {
    for (let l = 1; l < layers.length; l++) layers[l] = sweep(layers[l]!, inn, l - 1);
    measure();
    for (let l = layers.length - 2; l >= 0; l--) layers[l] = sweep(layers[l]!, out, l + 1);
    measure();
  }
  return layers.filter((ids) => ids !== undefined);
}

/**
 * The graph with a lane in each layer a forward edge skips: the edge becomes a chain through its
 * lanes, each as wide across as the edge's source and taking no depth along the flow.
 */
function withLanes(
  nodes: LayoutNode[],
  edges: LayoutEdge[],
  layer: Map<string, number>,
  direction: 'TB' | 'LR',
): { nodes: LayoutNode[]; edges: LayoutEdge[]; layer: Map<string, number>; lanes: Set<string> } {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const layers = new Map(layer);
  const all = [...nodes];
  const links: LayoutEdge[] = [];
  const lanes = new Set<string>();
  edges.forEach((e, i) => {
    const source = byId.get(e.source);
    const from = layer.get(e.source);
    const to = layer.get(e.target);
    if (!source || from === undefined || to === undefined || to - from < 2) return void links.push(e);
    let previous = e.source;
    for (let l = from + 1; l < to; l++) {
      const id = `\u0000lane:${i}:${l}`;
      const tb = direction === 'TB';
      all.push({ id, width: tb ? source.width : 0, height: tb ? 0 : source.height });
      layers.set(id, l);
      lanes.add(id);
      links.push({ source: previous, target: id });
      previous = id;
    }
    links.push({ source: previous, target: e.target });
  });
  return { nodes: all, edges: links, layer: layers, lanes };
}

/** Where each step goes (its top-left corner). */
export function layeredLayout(
  nodes: LayoutNode[],
  edges: LayoutEdge[],
  options: LayoutOptions = {},
): Map<string, { x: number; y: number }> {
  const { direction = 'TB', layerGap = 70, nodeGap = 40, origin = { x: 0, y: 0 } } = options;
  const laned = withLanes(nodes, edges, layersOf(nodes, edges), direction);
  const byId = new Map(laned.nodes.map((n) => [n.id, n]));
  const layers = orderLayers(laned.nodes, laned.edges, laned.layer);
  // "along" is the direction the layers stack in, "across" the one a layer's steps line up in.
  const along = (n: LayoutNode) => (direction === 'TB' ? n.height : n.width);
  const across = (n: LayoutNode) => (direction === 'TB' ? n.width : n.height);
  const spots = new Map<string, { along: number; across: number }>();
  let at = 0;
  for (const ids of layers) {
    const steps = ids.map((id) => byId.get(id)!);
    const span = steps.reduce((sum, n) => sum + across(n), 0) + nodeGap * (steps.length - 1);
    let side = -span / 2;
    for (const n of steps) {
      // Centred within the layer's depth, so steps of different heights line up on their middles.
      const depth = Math.max(...steps.map(along));
      spots.set(n.id, { along: at + (depth - along(n)) / 2, across: side });
      side += across(n) + nodeGap;
    }
    at += Math.max(...steps.map(along)) + layerGap;
  }
  for (const lane of laned.lanes) spots.delete(lane);
  const minAcross = Math.min(...[...spots.values()].map((s) => s.across));
  const result = new Map<string, { x: number; y: number }>();
  for (const [id, s] of spots) {
    const a = Math.round(s.along);
    const c = Math.round(s.across - minAcross);
    result.set(
      id,
      direction === 'TB' ? { x: origin.x + c, y: origin.y + a } : { x: origin.x + a, y: origin.y + c },
    );
  }
  return result;
}
