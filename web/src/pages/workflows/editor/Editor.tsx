// The editor proper: palette | canvas | side panel (step, simulate, versions, talk). It owns the
// graph while it is edited: every change is saved as a draft by use-draft-saver (and validated
// after each save, so findings follow the edits), publish flushes the draft first, and a version
// can be laid over the canvas read-only.
import '@xyflow/react/dist/style.css';
import './editor.css';
import {
  Background,
  Controls,
  ReactFlow,
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
import { Badge } from '../../../components/Badge';
import { PageHeader } from '../../../components/PageHeader';
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
import { EditHistory, snapshotOf, type Snapshot } from './history';
import { Inspector } from './Inspector';
import { DEFAULT_HANDLE, type NodeType } from './node-catalog';
import { DRAG_TYPE, Palette } from './Palette';
import type { JsonSchema } from './schema-form';
import { SimulatePanel, type SimulationResult } from './SimulatePanel';
import { StepNodeView } from './StepNodeView';
import { TalkPanel } from './TalkPanel';
import { useDraftSaver, type SaveStatus } from './use-draft-saver';
import { loadVersionGraph, VersionsPanel } from './VersionsPanel';

const NODE_TYPES_MAP = { step: StepNodeView };

type Tab = 'step' | 'simulate' | 'versions' | 'talk';
const TABS: { id: Tab; label: string }[] = [
  { id: 'step', label: 'Step' },
  { id: 'simulate', label: 'Simulate' },
  { id: 'versions', label: 'Versions' },
  { id: 'talk', label: 'Talk to it' },
];
const SAVE_TEXT: Record<SaveStatus, string> = {
  saved: 'All changes saved',
  pending: 'Unsaved changes',
  saving: 'Saving…',
  error: 'Not saved',
};

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
  const [notice, setNotice] = useState<{ tone: 'good' | 'bad'; text: string } | null>(null);
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
  const lastJson = useRef(json);
  // Undo and redo: each edit's "before" goes on the history; a drag counts once, when it ends. The
  // history outlives a reload of the tab (sessionStorage), as long as the draft is still where it ended.
  const [stored] = useState(() => EditHistory.load(sessionStorage, workflow.id, json));
  const history = useRef(stored);
  const committed = useRef(snapshotOf(initial.nodes, initial.edges));
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
    history.current.save(sessionStorage, workflow.id, json);
    setHistoryTick((t) => t + 1);
    saver.schedule(graph);
  }, [json, graph, saver, nodes, edges, workflow.id]);

  const restore = (to: Snapshot | undefined) => {
    if (!to) return;
    const selected = nodes.find((n) => n.selected)?.id;
    restoring.current = stableJson(toGraph(to.nodes, to.edges, base.current));
    setNodes(to.nodes.map((n) => ({ ...n, selected: n.id === selected })));
    setEdges(to.edges);
    setHistoryTick((t) => t + 1);
  };
  const undo = () => !viewing && restore(history.current.undo(snapshotOf(nodes, edges)));
  const redo = () => !viewing && restore(history.current.redo(snapshotOf(nodes, edges)));
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
    history.current.seal();
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
  const onDraftChange = useCallback(
    (changes: NodeChange<StepNode>[]) => {
      if (changes.some((c) => c.type === 'select' && c.selected)) {
        setTab('step');
        history.current.seal();
      }
      onNodesChange(changes);
    },
    [onNodesChange],
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
      <PageHeader
        title={workflow.name}
        crumb="Workflows"
        description={
          <span className="editor-status">
            {published ? (
              <Badge value={`live: v${published}`} tone="good" />
            ) : (
              <Badge value="not published" />
            )}
            <span className={`save-state save-${saver.status}`} role="status" data-save-status={saver.status}>
              {SAVE_TEXT[saver.status]}
            </span>
            {errors.length > 0 && (
              <Badge value={`${errors.length} error${errors.length > 1 ? 's' : ''}`} tone="bad" />
            )}
          </span>
        }
        actions={
          <>
            <span className="btn-group" role="group" aria-label="History">
              <button
                type="button"
                className="btn"
                onClick={undo}
                disabled={!!viewing || !history.current.canUndo}
                aria-keyshortcuts="Control+Z"
                title="Undo (Ctrl+Z)"
              >
                Undo
              </button>
              <button
                type="button"
                className="btn"
                onClick={redo}
                disabled={!!viewing || !history.current.canRedo}
                aria-keyshortcuts="Control+Shift+Z"
                title="Redo (Ctrl+Shift+Z)"
              >
                Redo
              </button>
            </span>
            <button
              type="button"
              className="btn"
              onClick={tidy}
              disabled={!!viewing || nodes.length === 0}
              title="Lay the steps out by depth from the start, without overlaps"
            >
              Tidy up
            </button>
            <button type="button" className="btn" onClick={() => void validate()} disabled={!!viewing}>
              Validate
            </button>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => void publish()}
              disabled={busy || !!viewing}
            >
              {busy ? 'Publishing…' : 'Publish'}
            </button>
          </>
        }
      />
      {saver.status === 'error' && saver.error && (
        <div className="banner banner-error" role="alert">
          The draft was not saved: {saver.error.status === 422 ? saver.error.message : explain(saver.error)}{' '}
          {saver.error.status !== 429 && (
            <button type="button" className="btn btn-small" onClick={() => void saver.flush()}>
              Retry
            </button>
          )}
        </div>
      )}
      {notice && (
        <div
          className={`banner ${notice.tone === 'good' ? 'banner-info' : 'banner-error'}`}
          role={notice.tone === 'bad' ? 'alert' : 'status'}
        >
          {notice.text}
        </div>
      )}
      {viewing && (
        <div className="banner banner-warn" role="status">
          Viewing version {viewing.version}, read-only.{' '}
          <button type="button" className="btn btn-small" onClick={() => setViewing(null)}>
            Back to the draft
          </button>
        </div>
      )}
      <div className="editor-body">
        <Palette onAdd={(t) => addNode(t)} disabled={!!viewing} />
        <div
          className="canvas"
          ref={canvasRef}
          onKeyDown={(e) => {
            // Enter on a step opens its form even when the step is already selected (xyflow then
            // reports no selection change, so onDraftChange alone would leave another tab showing).
            if (
              (e.key === 'Enter' || e.key === ' ') &&
              (e.target as HTMLElement).closest('.react-flow__node')
            )
              setTab('step');
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
            addNode(type, flow.screenToFlowPosition({ x: e.clientX - 100, y: e.clientY - 20 }));
          }}
        >
          <ReactFlow<StepNode, LinkEdge>
            nodes={shownNodes}
            edges={shownEdges}
            nodeTypes={NODE_TYPES_MAP}
            onNodesChange={viewing ? onViewingChange : onDraftChange}
            onEdgesChange={viewing ? undefined : onEdgesChange}
            onConnect={viewing ? undefined : onConnect}
            isValidConnection={(c) => c.source !== c.target}
            nodesDraggable={!viewing}
            nodesConnectable={!viewing}
            deleteKeyCode={viewing ? null : ['Backspace', 'Delete']}
            fitView
            fitViewOptions={{ maxZoom: 1 }}
            aria-label="Workflow canvas"
          >
            <Background gap={20} />
            <Controls showInteractive={false} fitViewOptions={{ maxZoom: 1 }} />
          </ReactFlow>
        </div>
        <aside className="side-panel" aria-label="Editor panel">
          <div className="tabs" role="group" aria-label="Panels">
            {TABS.map((t) => (
              <button
                key={t.id}
                type="button"
                className={`tab ${tab === t.id ? 'tab-active' : ''}`}
                aria-pressed={tab === t.id}
                onClick={() => setTab(t.id)}
              >
                {t.label}
              </button>
            ))}
          </div>
          <div className="panel-scroll" ref={inspectorRef} tabIndex={-1}>
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
          </div>
        </aside>
      </div>
    </div>
  );
}
