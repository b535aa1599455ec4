// The parsed graphs of published workflow versions, kept in memory. A version is frozen when it
// is published and never changes, so a graph read once stays right: every call set-up and every
// phone session start used to read and parse the same row again (two reads per call). The only
// way a version goes away is its workflow's deletion, which forgets the workflow's entries once
// committed. Graphs are deep-frozen because every session of that version shares the object.
import type { WorkflowGraph } from '../../workflow/graph.types.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

export class VersionGraphs {
  /** Insertion order is use order: the first key is the least recently used. */
  private readonly graphs = new Map<string, WorkflowGraph>();

  constructor(private readonly max = 500) {}

  get size(): number {
    return this.graphs.size;
  }

  /**
   * The graph of `workflowId` version `version`: from memory, or from `load` (null when the row
   * is missing; a miss is not remembered, so a version published later is found).
   */
  async get(
    workflowId: string,
    version: number,
    load: () => Promise<WorkflowGraph | null>,
  ): Promise<WorkflowGraph | null> {
    const key = `${workflowId}\u0000${version}`;
    const hit = this.graphs.get(key);
    if (hit) {
      this.graphs.delete(key);
      this.graphs.set(key, hit);
      return hit;
    }
    const graph = await load();
    if (graph === null) return null;
    deepFreeze(graph);
    if (this.graphs.size >= this.max) this.graphs.delete(this.graphs.keys().next().value!);
    this.graphs.set(key, graph);
    return graph;
  }

  /** Forgets every version of a deleted workflow. */
  forget(workflowId: string): void {
    const prefix = `${workflowId}\u0000`;
    for (const key of this.graphs.keys()) if (key.startsWith(prefix)) this.graphs.delete(key);
  }
}

/** The process's cache: versions are global facts (ids are unique), so one per process is right. */
export const versionGraphs = new VersionGraphs();
