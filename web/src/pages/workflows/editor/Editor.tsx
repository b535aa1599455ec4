// The editor proper: palette | canvas | side panel (step, simulate, versions, talk). It owns the
// graph while it is edited: every change is saved as a draft by use-draft-saver (and validated
// after each save, so findings follow the edits), publish flushes the draft first, and a version
// can be laid over the canvas read-only.
import '@xyflow/react/dist/style.css';
import './editor.css';
import {
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useReactFlow,
  type Connection,
  applyNodeChanges,
  type NodeChange,
} from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, call } from '../../../api/client';
import { ApiError, explain } from '../../../api/errors';
import type { Workflow } from '../../../api/types';
import { stableJson } from './diff';
import { decorateEdges, decorateNodes, freeSpot, tidyPositions } from './canvas-view';
import { findingsFromErrors } from './findings';
import {
  asGraph,
  dropExits,
  exitsOf,
  freshNodeId,
  linkEdge,
  newStepNode,
  renameNode,
  renameProblem,
  toFlow,
  toGraph,
  type Finding,
  type LinkEdge,
  type StepNode,
} from './graph';
import { Inspector } from './Inspector';
import { DEFAULT_HANDLE, type NodeType } from './node-catalog';
import { EditorCanvas } from './EditorCanvas';
import { EditorBanners, EditorHeader, type Notice } from './EditorHeader';
import { Palette } from './Palette';
import type { JsonSchema } from './schema-form';
import { SimulatePanel, type SimulationResult } from './SimulatePanel';
import { TalkPanel } from './TalkPanel';
import { SidePanel, type Tab } from './SidePanel';
import { useDraftSaver } from './use-draft-saver';
import { useEditHistory } from './use-edit-history';
import { loadVersionGraph, VersionsPanel } from './VersionsPanel';

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
  const base = useRef(asGraph(workflow.graph));
  const initial = useMemo(() => toFlow(base.current), []);
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<LinkEdge>(initial.edges);
  const [findings, setFindings] = useState<Finding[]>([]);
  const [published, setPublished] = useState<number | null>(workflow.published_version);
  const [tab, setTab] = useState<Tab>('step');
  const [viewing, setViewing] = useState<{ version: number; nodes: StepNode[]; edges: LinkEdge[] } | null>(
    null,
  );
  const [path, setPath] = useState<string[]>([]);
  const [liveNode, setLiveNode] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);
  const canvasRef = useRef<HTMLDivElement>(null);
  const inspectorRef = useRef<HTMLDivElement>(null);
  const flow = useReactFlow();

  const validate = useCallback(async () => {
    const { data } = await call(
      api.POST('/api/v1/workflows/{id}/validate', { params: { path: { id: workflow.id } } }),
    );
    setFindings([...data.errors, ...data.warnings.map((w) => ({ ...w, severity: 'warning' as const }))]);
    // A refused publish's banner goes once the graph it spoke of is valid.
    if (data.valid) setNotice((n) => (n?.tone === 'bad' ? null : n));
    return data;
  }, [workflow.id]);
  const saver = useDraftSaver(workflow.id, {
    delayMs: saveDelayMs,
    onSaved: () => void validate().catch(() => undefined),
  });
  useEffect(() => void validate().catch(() => undefined), [validate]);

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
    readOnly: !!viewing,
  });

  const addNode = (type: NodeType, at?: { x: number; y: number }) => {
    if (viewing) return;
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
    setTab('step');
    // Added from the keyboard: show the whole flow, the new step in it (it may land below the fold), then
    // move focus to its form. A dropped step is already where the pointer was.
    requestAnimationFrame(() => {
      if (!at) void flow.fitView({ maxZoom: 1, duration: 200 });
      inspectorRef.current?.focus();
    });
  };

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
    if (viewing || nodes.length === 0) return;
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
    history.seal();
    setNodes((ns) => ns.map((n) => ({ ...n, selected: n.id === id })));
    setTab('step');
    const n = nodes.find((x) => x.id === id);
    if (n)
      void flow.setCenter(n.position.x + 100, n.position.y + 40, { duration: 200, zoom: flow.getZoom() });
  };

  const publish = async (version?: number) => {
    setBusy(true);
    setNotice(null);
    try {
      await saver.flush();
      const { data } = await call(
        api.POST('/api/v1/workflows/{id}/publish', {
          params: { path: { id: workflow.id } },
          body: version ? { version } : {},
        }),
      );
      setPublished(data.published_version);
      setGeneration((g) => g + 1);
      setNotice({
        tone: 'good',
        text: version
          ? `Version ${version} published again as version ${data.published_version}.`
          : `Published version ${data.published_version}. Numbers and sessions now run it.`,
      });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(400, String(err));
      if (e.status === 422) {
        setFindings(
          findingsFromErrors(
            e.fieldErrors,
            nodes.map((n) => n.id),
          ),
        );
        void validate().catch(() => undefined);
        setTab('step');
      }
      setNotice({ tone: 'bad', text: e.status === 422 ? e.message : explain(e) });
    } finally {
      setBusy(false);
    }
  };

  // Selecting a step, by pointer or by keyboard (Enter on a focused step), opens its form.
  const { seal } = history;
  const onDraftChange = useCallback(
    (changes: NodeChange<StepNode>[]) => {
      if (changes.some((c) => c.type === 'select' && c.selected)) {
        setTab('step');
        seal();
      }
      onNodesChange(changes);
    },
    [onNodesChange, seal],
  );
  // A version on the canvas is read-only: only selecting a step (to read its config) applies.
  const onViewingChange = useCallback((changes: NodeChange<StepNode>[]) => {
    // Measurements must apply too: xyflow shows a step only once it knows its size.
    const picks = changes.filter((c) => c.type === 'select' || c.type === 'dimensions');
    if (picks.some((c) => c.type === 'select' && c.selected)) setTab('step');
    setViewing((v) => v && { ...v, nodes: applyNodeChanges(picks, v.nodes) });
  }, []);

  const view = async (version: number | null) => {
    if (version === null) {
      setViewing(null);
      requestAnimationFrame(() => void flow.fitView({ maxZoom: 1 }));
      return;
    }
    const flowOf = toFlow(await loadVersionGraph(workflow.id, version), true);
    setViewing({ version, ...flowOf });
    requestAnimationFrame(() => void flow.fitView({ maxZoom: 1 }));
  };

  // What the canvas shows: the draft (or a version), with findings and the simulated path on it.
  const shownNodes = useMemo(
    () => decorateNodes(viewing ? viewing.nodes : nodes, viewing ? [] : findings, path, liveNode),
    [viewing, nodes, findings, path, liveNode],
  );
  const shownEdges = useMemo(
    () => decorateEdges(viewing ? viewing.edges : edges, path),
    [viewing, edges, path],
  );

  // The selection lives on the nodes (xyflow's own flag), so canvas and panel never disagree.
  const selectedNode = (viewing ? viewing.nodes : nodes).find((n) => n.selected);
  const errors = findings.filter((f) => f.severity !== 'warning');

  return (
    <div className="editor">
      <EditorHeader
        name={workflow.name}
        published={published}
        saveStatus={saver.status}
        errors={errors.length}
        history={history}
        readOnly={!!viewing}
        busy={busy}
        canTidy={nodes.length > 0}
        onTidy={tidy}
        onValidate={() => void validate()}
        onPublish={() => void publish()}
      />
      <EditorBanners
        saver={saver}
        notice={notice}
        viewing={viewing?.version ?? null}
        onBackToDraft={() => setViewing(null)}
      />
      <div className="editor-body">
        <Palette onAdd={(t) => addNode(t)} disabled={!!viewing} />
        <EditorCanvas
          canvasRef={canvasRef}
          nodes={shownNodes}
          edges={shownEdges}
          readOnly={!!viewing}
          onNodesChange={viewing ? onViewingChange : onDraftChange}
          onEdgesChange={viewing ? undefined : onEdgesChange}
          onConnect={viewing ? undefined : onConnect}
          onDropStep={(type, at) => addNode(type, at)}
          onOpenStep={() => setTab('step')}
        />
        <SidePanel tab={tab} onTab={setTab} panelRef={inspectorRef}>
          {tab === 'step' && (
            <Inspector
              node={selectedNode}
              nodes={nodes}
              edges={viewing ? viewing.edges : edges}
              schemas={schemas}
              findings={viewing ? [] : findings}
              pickers={{ agent_id: agents }}
              readOnly={!!viewing}
              onConfig={setConfig}
              onConnect={connect}
              onDelete={deleteNode}
              onRename={rename}
              onSelect={select}
            />
          )}
          {tab === 'simulate' && (
            <SimulatePanel
              workflowId={workflow.id}
              beforeRun={saver.flush}
              onResult={(r: SimulationResult | null) => setPath(r?.path ?? [])}
            />
          )}
          {tab === 'versions' && (
            <VersionsPanel
              workflowId={workflow.id}
              generation={generation}
              draft={() => graph}
              viewing={viewing?.version ?? null}
              onView={(v) => void view(v)}
              onRollback={(v) => publish(v)}
            />
          )}
          {tab === 'talk' && (
            <TalkPanel
              projectId={workflow.project_id}
              workflowId={workflow.id}
              published={published}
              onNode={setLiveNode}
            />
          )}
        </SidePanel>
      </div>
    </div>
  );
}
