// The editor proper: palette | canvas | side panel (step, simulate, versions, talk). It owns the
// graph while it is edited: every change is saved as a draft by use-draft-saver (and validated
// after each save, so findings follow the edits), publish flushes the draft first, and a version
// can be laid over the canvas read-only.
import '@xyflow/react/dist/style.css';
import './editor.css';
import { ReactFlowProvider } from '@xyflow/react';
import { useCallback, useMemo, useRef, useState, type RefObject } from 'react';
import type { Workflow } from '../../../api/types';
import { decorateEdges, decorateNodes } from './canvas-view';
import type { Finding, Graph, LinkEdge, StepNode } from './graph';
import { Inspector } from './Inspector';
import { EditorCanvas } from './EditorCanvas';
import { EditorBanners, EditorHeader, type Notice } from './EditorHeader';
import { Palette } from './Palette';
import type { JsonSchema } from './schema-form';
import { SimulatePanel, type SimulationResult } from './SimulatePanel';
import { TalkPanel } from './TalkPanel';
import { SidePanel, type Tab } from './SidePanel';
import { useDraft } from './use-draft';
import { usePublish } from './use-publish';
import { useStepEdits } from './use-step-edits';
import { useValidation } from './use-validation';
import { useVersionView, type Viewing } from './use-version-view';
import { VersionsPanel } from './VersionsPanel';

interface Props {
  workflow: Workflow;
  schemas: Record<string, JsonSchema>;
  agents: { value: string; label: string }[];
  saveDelayMs?: number;
}

export function Editor(props: Props) {
  return (
    <ReactFlowProvider>
      <EditorInner {...props} />
    </ReactFlowProvider>
  );
}

function EditorInner({ workflow, schemas, agents, saveDelayMs }: Props) {
  const [tab, setTab] = useState<Tab>('step');
  const openStep = useCallback(() => setTab('step'), []);
  const [path, setPath] = useState<string[]>([]);
  const [liveNode, setLiveNode] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const canvasRef = useRef<HTMLDivElement>(null);
  const inspectorRef = useRef<HTMLDivElement>(null);
  const { viewing, setViewing, onViewingChange, view } = useVersionView(workflow.id, openStep);
  const readOnly = !!viewing;
  const { findings, setFindings, validate } = useValidation(workflow.id, setNotice);
  const draft = useDraft(workflow, {
    saveDelayMs,
    readOnly,
    onSaved: () => void validate().catch(() => undefined),
  });
  const { nodes, edges, saver, history } = draft;
  const publishing = usePublish(workflow, draft, { validate, setFindings, setNotice, onRefused: openStep });
  const edits = useStepEdits(draft, { readOnly, openStep, setFindings, setNotice, canvasRef, inspectorRef });
  const shown = useShownFlow(viewing, nodes, edges, findings, path, liveNode);

  return (
    <div className="editor">
      <EditorHeader
        name={workflow.name}
        published={publishing.published}
        saveStatus={saver.status}
        errors={findings.filter((f) => f.severity !== 'warning').length}
        history={history}
        readOnly={readOnly}
        busy={publishing.busy}
        canTidy={nodes.length > 0}
        onTidy={edits.tidy}
        onValidate={() => void validate()}
        onPublish={() => void publishing.publish()}
      />
      <EditorBanners
        saver={saver}
        notice={notice}
        viewing={viewing?.version ?? null}
        onBackToDraft={() => setViewing(null)}
      />
      <div className="editor-body">
        <Palette onAdd={(t) => edits.addNode(t)} disabled={readOnly} />
        <EditorCanvas
          canvasRef={canvasRef}
          nodes={shown.nodes}
          edges={shown.edges}
          readOnly={readOnly}
          onNodesChange={viewing ? onViewingChange : edits.onNodesChange}
          onEdgesChange={viewing ? undefined : draft.onEdgesChange}
          onConnect={viewing ? undefined : edits.onConnect}
          onDropStep={(type, at) => edits.addNode(type, at)}
          onOpenStep={openStep}
        />
        <EditorSide
          tab={tab}
          onTab={setTab}
          panelRef={inspectorRef}
          workflow={workflow}
          schemas={schemas}
          agents={agents}
          draft={draft}
          viewing={viewing}
          selected={shown.selected}
          findings={findings}
          edits={edits}
          publishing={publishing}
          onView={view}
          onPath={setPath}
          onLiveNode={setLiveNode}
        />
      </div>
    </div>
  );
}

/** What the canvas shows: the draft (or a version), with findings and the simulated path on it. */
function useShownFlow(
  viewing: Viewing | null,
  nodes: StepNode[],
  edges: LinkEdge[],
  findings: Finding[],
  path: string[],
  liveNode: string | null,
) {
  const shownNodes = useMemo(
    () => decorateNodes(viewing ? viewing.nodes : nodes, viewing ? [] : findings, path, liveNode),
    [viewing, nodes, findings, path, liveNode],
  );
  const shownEdges = useMemo(
    () => decorateEdges(viewing ? viewing.edges : edges, path),
    [viewing, edges, path],
  );
  // The selection lives on the nodes (xyflow's own flag), so canvas and panel never disagree.
  const selected = (viewing ? viewing.nodes : nodes).find((n) => n.selected);
  return { nodes: shownNodes, edges: shownEdges, selected };
}

/** The side panel: the selected step's form (Step), or one of the panels that run the workflow. */
function EditorSide({
  tab,
  onTab,
  panelRef,
  workflow,
  schemas,
  agents,
  draft,
  viewing,
  selected,
  findings,
  edits,
  publishing,
  onView,
  onPath,
  onLiveNode,
}: Pick<Props, 'workflow' | 'schemas' | 'agents'> & {
  tab: Tab;
  onTab: (tab: Tab) => void;
  panelRef: RefObject<HTMLDivElement | null>;
  draft: ReturnType<typeof useDraft>;
  viewing: Viewing | null;
  selected: StepNode | undefined;
  findings: Finding[];
  edits: ReturnType<typeof useStepEdits>;
  publishing: ReturnType<typeof usePublish>;
  onView: (version: number | null) => Promise<void>;
  onPath: (path: string[]) => void;
  onLiveNode: (node: string | null) => void;
}) {
  return (
    <SidePanel tab={tab} onTab={onTab} panelRef={panelRef}>
      {tab === 'step' && (
        <Inspector
          node={selected}
          nodes={draft.nodes}
          edges={viewing ? viewing.edges : draft.edges}
          schemas={schemas}
          findings={viewing ? [] : findings}
          pickers={{ agent_id: agents }}
          readOnly={!!viewing}
          onConfig={edits.setConfig}
          onConnect={edits.connect}
          onDelete={edits.deleteNode}
          onRename={edits.rename}
          onSelect={edits.select}
        />
      )}
      <RunPanels
        tab={tab}
        workflow={workflow}
        published={publishing.published}
        generation={publishing.generation}
        graph={draft.graph}
        viewing={viewing}
        flush={draft.saver.flush}
        onPath={onPath}
        onLiveNode={onLiveNode}
        onView={(v) => void onView(v)}
        onRollback={(v) => publishing.publish(v)}
      />
    </SidePanel>
  );
}

/** The side panel's tabs that run the workflow or its versions: Simulate, Versions, Talk to it. */
function RunPanels({
  tab,
  workflow,
  published,
  generation,
  graph,
  viewing,
  flush,
  onPath,
  onLiveNode,
  onView,
  onRollback,
}: {
  tab: Tab;
  workflow: Workflow;
  published: number | null;
  generation: number;
  graph: Graph;
  viewing: Viewing | null;
  flush: () => Promise<void>;
  onPath: (path: string[]) => void;
  onLiveNode: (node: string | null) => void;
  onView: (version: number | null) => void;
  onRollback: (version: number) => Promise<void>;
}) {
  return (
    <>
      {tab === 'simulate' && (
        <SimulatePanel
          workflowId={workflow.id}
          beforeRun={flush}
          onResult={(r: SimulationResult | null) => onPath(r?.path ?? [])}
        />
      )}
      {tab === 'versions' && (
        <VersionsPanel
          workflowId={workflow.id}
          generation={generation}
          draft={() => graph}
          viewing={viewing?.version ?? null}
          onView={onView}
          onRollback={onRollback}
        />
      )}
      {tab === 'talk' && (
        <TalkPanel
          projectId={workflow.project_id}
          workflowId={workflow.id}
          published={published}
          onNode={onLiveNode}
        />
      )}
    </>
  );
}
