// A published version laid over the canvas, read-only: only selecting a step (to read its config)
// applies to it; back to the draft puts the draft's canvas back.
import { applyNodeChanges, useReactFlow, type NodeChange } from '@xyflow/react';
import { useCallback, useState } from 'react';
import { toFlow, type LinkEdge, type StepNode } from './graph';
import { loadVersionGraph } from './VersionsPanel';

export interface Viewing {
  version: number;
  nodes: StepNode[];
  edges: LinkEdge[];
}

export function useVersionView(workflowId: string, onSelectStep: () => void) {
  const [viewing, setViewing] = useState<Viewing | null>(null);
  const flow = useReactFlow();

  const onViewingChange = useCallback(
    (changes: NodeChange<StepNode>[]) => {
      // Measurements must apply too: xyflow shows a step only once it knows its size.
      const picks = changes.filter((c) => c.type === 'select' || c.type === 'dimensions');
      if (picks.some((c) => c.type === 'select' && c.selected)) onSelectStep();
      setViewing((v) => v && { ...v, nodes: applyNodeChanges(picks, v.nodes) });
    },
    [onSelectStep],
  );

  const view = async (version: number | null) => {
    if (version === null) {
      setViewing(null);
      requestAnimationFrame(() => void flow.fitView({ maxZoom: 1 }));
      return;
    }
    const flowOf = toFlow(await loadVersionGraph(workflowId, version), true);
    setViewing({ version, ...flowOf });
    requestAnimationFrame(() => void flow.fitView({ maxZoom: 1 }));
  };
  return { viewing, setViewing, onViewingChange, view };
}
