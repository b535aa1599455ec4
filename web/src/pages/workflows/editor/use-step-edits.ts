// Edits of the draft's steps, from the palette, the canvas and the Step panel alike: add a step
// (beside the selected one, connected to its first free exit), connect an exit, change a step's
// config (dropping connections from exits it no longer has), rename, delete, select, and tidy up.
import { useReactFlow, type Connection, type NodeChange } from '@xyflow/react';
import { useCallback, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { freeSpot, tidyPositions } from './canvas-view';
import type { Notice } from './EditorHeader';
import {
  dropExits,
  exitsOf,
  freshNodeId,
  linkEdge,
  newStepNode,
  renameNode,
  renameProblem,
  type Finding,
  type LinkEdge,
  type StepNode,
} from './graph';
import { DEFAULT_HANDLE, type NodeType } from './node-catalog';

interface Draft {
  nodes: StepNode[];
  edges: LinkEdge[];
  setNodes: Dispatch<SetStateAction<StepNode[]>>;
  setEdges: Dispatch<SetStateAction<LinkEdge[]>>;
  onNodesChange: (changes: NodeChange<StepNode>[]) => void;
  /** `seal` ends the undo history's run of one step's setting edits. */
  history: { seal: () => void };
}

/** Adds a step: dropped where the pointer was, or from the keyboard beside the selected step. */
function useAddStep(
  { nodes, edges, setNodes, setEdges }: Draft,
  {
    readOnly,
    openStep,
    canvasRef,
    inspectorRef,
  }: {
    readOnly: boolean;
    openStep: () => void;
    canvasRef: RefObject<HTMLDivElement | null>;
    inspectorRef: RefObject<HTMLDivElement | null>;
  },
) {
  const flow = useReactFlow();
  return (type: NodeType, at?: { x: number; y: number }) => {
    if (readOnly) return;
    const id = freshNodeId(
      type,
      nodes.map((n) => n.id),
    );
    const from = nodes.find((n) => n.selected);
    let position = at;
    if (!position && from) position = { x: from.position.x, y: from.position.y + 180 };
    if (!position) {
      const box = canvasRef.current?.getBoundingClientRect();
      position = box
        ? flow.screenToFlowPosition({ x: box.left + box.width / 2 - 100, y: box.top + 80 })
        : { x: 80, y: 80 };
    }
    if (!at) position = freeSpot(position, nodes);
    setNodes((ns) => [
      ...ns.map((n) => ({ ...n, selected: false })),
      { ...newStepNode(type, id, position), selected: true },
    ]);
    // Added from the keyboard beside a step: follow its first free exit, as a Studio user expects.
    if (from && !at && type !== 'start') {
      const free = exitsOf(from.data.node).find(
        (h) => !edges.some((e) => e.source === from.id && (e.sourceHandle ?? DEFAULT_HANDLE) === h),
      );
      if (free) setEdges((es) => [...es, linkEdge(from.id, free, id)]);
    }
    openStep();
    // Added from the keyboard: show the whole flow, the new step in it (it may land below the fold), then
    // move focus to its form. A dropped step is already where the pointer was.
    requestAnimationFrame(() => {
      if (!at) void flow.fitView({ maxZoom: 1, duration: 200 });
      inspectorRef.current?.focus();
    });
  };
}

/** Add, connect, configure, rename, delete, select and tidy up the draft's steps. */
export function useStepEdits(
  draft: Draft,
  options: {
    readOnly: boolean;
    /** Opens the Step panel. */
    openStep: () => void;
    setFindings: Dispatch<SetStateAction<Finding[]>>;
    setNotice: (notice: Notice) => void;
    canvasRef: RefObject<HTMLDivElement | null>;
    inspectorRef: RefObject<HTMLDivElement | null>;
  },
) {
  const { nodes, edges, setNodes, setEdges } = draft;
  const { readOnly, openStep, setFindings, setNotice } = options;
  const { seal } = draft.history;
  const flow = useReactFlow();
  const addNode = useAddStep(draft, options);
  const onNodesChange = useDraftNodeChanges(draft.onNodesChange, { openStep, seal });
  const connect = useCallback(
    (source: string, handle: string, target: string | null) => {
      setEdges((es) => {
        const kept = es.filter(
          (e) => !(e.source === source && (e.sourceHandle ?? DEFAULT_HANDLE) === handle),
        );
        return target ? [...kept, linkEdge(source, handle, target)] : kept;
      });
    },
    [setEdges],
  );
  const onConnect = useCallback(
    (c: Connection) => connect(c.source, c.sourceHandle ?? DEFAULT_HANDLE, c.target),
    [connect],
  );
  const setConfig = (id: string, config: Record<string, unknown>) => {
    const before = nodes.find((n) => n.id === id);
    if (!before) return;
    const after = { ...before.data.node, config };
    setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, node: after } } : n)));
    setEdges((es) => dropExits(es, id, exitsOf(before.data.node), exitsOf(after)));
  };
  const rename = (from: string, to: string): string | null => {
    const problem = renameProblem(nodes, from, to);
    if (problem) return problem;
    const renamed = renameNode(nodes, edges, from, to);
    setNodes(renamed.nodes);
    setEdges(renamed.edges);
    // The findings name the old id until the next validation: move them along now.
    setFindings((fs) => fs.map((f) => (f.node_id === from ? { ...f, node_id: to } : f)));
    return null;
  };
  /** Lays every step out by depth (undoable like any edit; saved with the draft as positions). */
  const tidy = () => {
    if (readOnly || nodes.length === 0) return;
    const placed = tidyPositions(nodes, edges);
    setNodes((ns) => ns.map((n) => ({ ...n, position: placed.get(n.id) ?? n.position })));
    setNotice({
      tone: 'good',
      text: `Laid out ${nodes.length} step${nodes.length === 1 ? '' : 's'} by depth from the start. Undo puts them back.`,
    });
    requestAnimationFrame(() => void flow.fitView({ maxZoom: 1, duration: 200 }));
  };
  const deleteNode = (id: string) => {
    setNodes((ns) => ns.filter((n) => n.id !== id));
    setEdges((es) => es.filter((e) => e.source !== id && e.target !== id));
  };
  const select = (id: string) => {
    seal();
    setNodes((ns) => ns.map((n) => ({ ...n, selected: n.id === id })));
    openStep();
    const n = nodes.find((x) => x.id === id);
    if (n)
      void flow.setCenter(n.position.x + 100, n.position.y + 40, { duration: 200, zoom: flow.getZoom() });
  };
  return { addNode, onNodesChange, connect, onConnect, setConfig, rename, tidy, deleteNode, select };
}

/** The draft's node changes: selecting a step (pointer or Enter) opens its form and ends an undo run. */
function useDraftNodeChanges(
  onNodesChange: (changes: NodeChange<StepNode>[]) => void,
  { openStep, seal }: { openStep: () => void; seal: () => void },
) {
  return useCallback(
    (changes: NodeChange<StepNode>[]) => {
      if (changes.some((c) => c.type === 'select' && c.selected)) {
        openStep();
        seal();
      }
      onNodesChange(changes);
    },
    [onNodesChange, seal, openStep],
  );
}
