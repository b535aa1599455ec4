// The editor's undo and redo over the draft: each edit's "before" goes on the history; a drag
// counts once, when it ends. Every edit of what the graph means is also handed to the draft saver.
// The history outlives a reload of the tab (sessionStorage), as long as the draft is still where it
// ended. Ctrl+Z undoes and Ctrl+Shift+Z or Ctrl+Y redoes, outside text boxes (they keep their own).
import { useCallback, useEffect, useRef, useState, type MutableRefObject } from 'react';
import { stableJson } from './diff';
import { toGraph, type Graph, type LinkEdge, type StepNode } from './graph';
import { EditHistory, snapshotOf, type Snapshot } from './history';
import type { DraftSaver } from './use-draft-saver';

interface EditHistoryInput {
  workflowId: string;
  /** The draft on the canvas, and the graph and stable JSON it means. */
  nodes: StepNode[];
  edges: LinkEdge[];
  graph: Graph;
  json: string;
  setNodes: (nodes: StepNode[]) => void;
  setEdges: (edges: LinkEdge[]) => void;
  /** The draft as the editor opened it. */
  initial: Snapshot;
  base: MutableRefObject<Graph>;
  saver: DraftSaver;
  /** A version is on the canvas: nothing is undone or redone. */
  readOnly: boolean;
}

export interface EditHistoryControls {
  undo: () => void;
  redo: () => void;
  canUndo: boolean;
  canRedo: boolean;
  /** Ends the current run of one step's setting edits (selecting another step does). */
  seal: () => void;
}

export function useEditHistory(input: EditHistoryInput): EditHistoryControls {
  const { workflowId, nodes, edges, graph, json, saver, base } = input;
  const lastJson = useRef(json);
  const [stored] = useState(() => EditHistory.load(sessionStorage, workflowId, json));
  const history = useRef(stored);
  const committed = useRef(snapshotOf(input.initial.nodes, input.initial.edges));
  const restoring = useRef<string | null>(null);
  const [, setHistoryTick] = useState(0);
  useEffect(() => {
    if (json === lastJson.current) return;
    if (nodes.some((n) => n.dragging)) return;
    lastJson.current = json;
    const now = snapshotOf(nodes, edges);
    if (restoring.current !== json) history.current.record(committed.current, now);
    restoring.current = null;
    committed.current = now;
    history.current.save(sessionStorage, workflowId, json);
    setHistoryTick((t) => t + 1);
    saver.schedule(graph);
  }, [json, graph, saver, nodes, edges, workflowId]);

  const restore = (to: Snapshot | undefined) => {
    if (!to) return;
    const selected = nodes.find((n) => n.selected)?.id;
    restoring.current = stableJson(toGraph(to.nodes, to.edges, base.current));
    input.setNodes(to.nodes.map((n) => ({ ...n, selected: n.id === selected })));
    input.setEdges(to.edges);
    setHistoryTick((t) => t + 1);
  };
  const undo = () => !input.readOnly && restore(history.current.undo(snapshotOf(nodes, edges)));
  const redo = () => !input.readOnly && restore(history.current.redo(snapshotOf(nodes, edges)));
  useUndoKeys(undo, redo);
  const seal = useCallback(() => history.current.seal(), []);
  return { undo, redo, canUndo: history.current.canUndo, canRedo: history.current.canRedo, seal };
}

/** Ctrl+Z and Ctrl+Shift+Z (or Ctrl+Y) anywhere on the page but in a text box. */
function useUndoKeys(undo: () => void, redo: () => void): void {
  const keys = useRef({ undo, redo });
  keys.current = { undo, redo };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      // Text boxes keep their own undo of what is typed in them.
      const target = e.target as HTMLElement | null;
      if (target?.closest('textarea, input:not([type=checkbox]):not([type=radio]), [contenteditable="true"]'))
        return;
      const key = e.key.toLowerCase();
      if (key === 'z' && !e.shiftKey) keys.current.undo();
      else if ((key === 'z' && e.shiftKey) || key === 'y') keys.current.redo();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
