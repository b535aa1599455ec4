// The editor's canvas: the steps and links (the draft, or a version read-only) on xyflow, a drop
// target for the palette's steps, and Enter on a step opening its form.
import {
  Background,
  Controls,
  ReactFlow,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import type { RefObject } from 'react';
import type { LinkEdge, StepNode } from './graph';
import type { NodeType } from './node-catalog';
import { DRAG_TYPE } from './Palette';
import { StepNodeView } from './StepNodeView';

const NODE_TYPES_MAP = { step: StepNodeView };

export function EditorCanvas({
  canvasRef,
  nodes,
  edges,
  readOnly,
  onNodesChange,
  onEdgesChange,
  onConnect,
  onDropStep,
  onOpenStep,
}: {
  canvasRef: RefObject<HTMLDivElement | null>;
  nodes: StepNode[];
  edges: LinkEdge[];
  /** A version is shown: nothing moves, links or goes. */
  readOnly: boolean;
  onNodesChange: (changes: NodeChange<StepNode>[]) => void;
  onEdgesChange?: (changes: EdgeChange<LinkEdge>[]) => void;
  onConnect?: (c: Connection) => void;
  /** A step dragged from the palette, dropped at a point of the flow. */
  onDropStep: (type: NodeType, at: { x: number; y: number }) => void;
  onOpenStep: () => void;
}) {
  const flow = useReactFlow();
  return (
    <div
      className="canvas"
      ref={canvasRef}
      onKeyDown={(e) => {
        // Enter on a step opens its form even when the step is already selected (xyflow then
        // reports no selection change, so onDraftChange alone would leave another tab showing).
        if ((e.key === 'Enter' || e.key === ' ') && (e.target as HTMLElement).closest('.react-flow__node'))
          onOpenStep();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes(DRAG_TYPE)) {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'move';
        }
      }}
      onDrop={(e) => {
        const type = e.dataTransfer.getData(DRAG_TYPE) as NodeType;
        if (!type) return;
        e.preventDefault();
        onDropStep(type, flow.screenToFlowPosition({ x: e.clientX - 100, y: e.clientY - 20 }));
      }}
    >
      <ReactFlow<StepNode, LinkEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES_MAP}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        isValidConnection={(c) => c.source !== c.target}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={readOnly ? null : ['Backspace', 'Delete']}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        aria-label="Workflow canvas"
      >
        <Background gap={20} />
        <Controls showInteractive={false} fitViewOptions={{ maxZoom: 1 }} />
      </ReactFlow>
    </div>
  );
}
