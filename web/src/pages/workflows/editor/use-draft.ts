// The draft on the canvas: its steps and connections as xyflow state, saved as you go (every change
// of what the graph means is scheduled with use-draft-saver) and undoable (use-edit-history).
import { useEdgesState, useNodesState } from '@xyflow/react';
import { useMemo, useRef } from 'react';
import type { Workflow } from '../../../api/types';
import { stableJson } from './diff';
import { asGraph, toFlow, toGraph, type LinkEdge, type StepNode } from './graph';
import { useDraftSaver } from './use-draft-saver';
import { useEditHistory } from './use-edit-history';

export function useDraft(
  workflow: Workflow,
  {
    saveDelayMs,
    readOnly,
    onSaved,
  }: {
    saveDelayMs: number | undefined;
    /** A version is on the canvas: the draft is not undone or redone meanwhile. */
    readOnly: boolean;
    /** After each save (the draft is validated then). */
    onSaved: () => void;
  },
) {
  // The workflow's graph as opened: keys the canvas does not edit are kept from it.
  const base = useRef(asGraph(workflow.graph));
  const initial = useMemo(() => toFlow(base.current), []);
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<LinkEdge>(initial.edges);
  const saver = useDraftSaver(workflow.id, { delayMs: saveDelayMs, onSaved });

  // Save whenever what the graph means changes (selection and decorations are not the graph).
  const graph = useMemo(() => toGraph(nodes, edges, base.current), [nodes, edges]);
  const json = useMemo(() => stableJson(graph), [graph]);
  const history = useEditHistory({
    workflowId: workflow.id,
    nodes,
    edges,
    graph,
    json,
    setNodes,
    setEdges,
    initial,
    base,
    saver,
    readOnly,
  });
  return { nodes, setNodes, onNodesChange, edges, setEdges, onEdgesChange, graph, saver, history };
}
