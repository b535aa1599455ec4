// The editor's undo and redo: a stack of the graph as it was before each edit. Consecutive edits of
// one step's settings (typing a prompt, key by key) make one undo step, so Ctrl+Z takes back what
// a person thinks of as one change (the editor records a drag once, when it ends).
import type { LinkEdge, StepNode } from './graph';

export interface Snapshot {
  nodes: StepNode[];
  edges: LinkEdge[];
}

const LIMIT = 100;
/** What a reload keeps: the newest undo and redo steps, within a size sessionStorage holds easily. */
const STORED_STEPS = 40;
const STORED_CHARS = 1_500_000;

/** What kind of edit turned `before` into `after`: 'config:<id>' when only that step's settings changed. */
export function editKind(before: Snapshot, after: Snapshot): string | null {
  if (before.edges !== after.edges && JSON.stringify(edgeKeys(before)) !== JSON.stringify(edgeKeys(after)))
    return null;
  if (before.nodes.length !== after.nodes.length) return null;
  let changed: string | null = null;
  for (let i = 0; i < after.nodes.length; i++) {
    const a = before.nodes[i];
    const b = after.nodes[i];
    if (a.id !== b.id) return null;
    if (a.position.x !== b.position.x || a.position.y !== b.position.y) return null;
    if (a.data.node === b.data.node || JSON.stringify(a.data.node) === JSON.stringify(b.data.node)) continue;
    if (changed !== null) return null;
    changed = `config:${b.id}`;
  }
  return changed;
}

function edgeKeys(s: Snapshot): string[] {
  return s.edges.map((e) => e.id);
}

/** Keeps only what the graph means: selection and drag state are not part of an undo step. */
export function snapshotOf(nodes: StepNode[], edges: LinkEdge[]): Snapshot {
  return {
    nodes: nodes.map((n) => ({ ...n, selected: false, dragging: false })),
    edges: edges.map((e) => ({ ...e, selected: false })),
  };
}

interface Stored {
  /** The graph (stable JSON) the history leads up to: kept only while the draft is still that graph. */
  at: string;
  past: Snapshot[];
  future: Snapshot[];
}

export class EditHistory {
  private past: Snapshot[] = [];
  private future: Snapshot[] = [];
  private lastKind: string | null = null;

  /**
   * The history a reload of this workflow left in this tab's sessionStorage, if it ends at `at` (the
   * draft as loaded); otherwise, as when another tab or a rollback changed the draft since, an
   * empty one (undoing into a graph the history no longer leads from would lose work).
   */
  static load(storage: Storage, workflowId: string, at: string): EditHistory {
    const h = new EditHistory();
    try {
      const raw = storage.getItem(storageKey(workflowId));
      const stored = raw ? (JSON.parse(raw) as Stored) : null;
      if (stored && stored.at === at && Array.isArray(stored.past) && Array.isArray(stored.future)) {
        h.past = stored.past;
        h.future = stored.future;
      }
    } catch {
      // Unreadable (edited by hand, or from an older build): start afresh.
    }
    return h;
  }

  /** Keeps the newest steps for a reload; a full storage keeps fewer, never throws. */
  save(storage: Storage, workflowId: string, at: string): void {
    let past = this.past.slice(-STORED_STEPS);
    let future = this.future.slice(-STORED_STEPS);
    for (;;) {
      const text = JSON.stringify({ at, past, future } satisfies Stored);
      if (text.length <= STORED_CHARS || (past.length === 0 && future.length === 0)) {
        try {
          storage.setItem(storageKey(workflowId), text);
          return;
        } catch {
          if (past.length === 0 && future.length === 0) return;
        }
      }
      // Drop the oldest undo step first (then the farthest redo): the recent ones matter most.
      if (past.length > 0) past = past.slice(1);
      else future = future.slice(1);
    }
  }

  /** `before` is the graph as it was before an edit that produced `after`. */
  record(before: Snapshot, after: Snapshot): void {
    const kind = editKind(before, after);
    this.future = [];
    // One step's settings typed key by key, or one step dragged, stays one undo step.
    if (kind !== null && kind === this.lastKind && this.past.length > 0) return;
    this.lastKind = kind;
    this.past.push(before);
    if (this.past.length > LIMIT) this.past.shift();
  }

  /** Ends the run of edits that merge into one step (after an undo, a redo or a selection). */
  seal(): void {
    this.lastKind = null;
  }

  undo(current: Snapshot): Snapshot | undefined {
    const previous = this.past.pop();
    if (!previous) return undefined;
    this.future.push(current);
    this.lastKind = null;
    return previous;
  }

  redo(current: Snapshot): Snapshot | undefined {
    const next = this.future.pop();
    if (!next) return undefined;
    this.past.push(current);
    this.lastKind = null;
    return next;
  }

  get canUndo(): boolean {
    return this.past.length > 0;
  }

  get canRedo(): boolean {
    return this.future.length > 0;
  }
}

function storageKey(workflowId: string): string {
  return `switchboard.editHistory.${workflowId}`;
}
