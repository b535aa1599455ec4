// Versions: every published version (newest first), each viewable on the canvas read-only and
// re-publishable (roll back: its graph becomes a new version); and a diff of any two of them, the
// draft included, so "what did v3 change" and "what will publishing change" read the same way.
import { useState } from 'react';
import { api, call } from '../../../api/client';
import { useLoad } from '../../../api/hooks';
import { Badge } from '../../../components/Badge';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../../components/ErrorBanner';
import { formatActor, formatTime } from '../../../components/format';
import { diffGraphs, isEmptyDiff, type GraphDiff } from './diff';
import { asGraph, type Graph } from './graph';

export interface VersionItem {
  version: number;
  published_at: string;
  published_by: string;
}

export async function loadVersionGraph(workflowId: string, version: number): Promise<Graph> {
  const { data } = await call(
    api.GET('/api/v1/workflows/{id}/versions/{version}', { params: { path: { id: workflowId, version } } }),
  );
  return asGraph(data.graph);
}

/** The newest versions (up to 200): the list is oldest first, so the last pages hold the newest. */
async function loadVersions(id: string): Promise<VersionItem[]> {
  const page = async (n: number) =>
    await call(
      api.GET('/api/v1/workflows/{id}/versions', {
        params: { path: { id }, query: { per_page: 100, page: n } },
      }),
    );
  const first = await page(1);
  const last = first.meta.last_page;
  if (last === 1) return first.data;
  const tail = await Promise.all([last - 1, last].filter((n) => n > 1).map(page));
  return [...(last === 2 ? first.data : []), ...tail.flatMap((p) => p.data)];
}

interface Props {
  workflowId: string;
  /** Bumped after a publish, so the list reloads. */
  generation: number;
  draft: () => Graph;
  viewing: number | null;
  onView: (version: number | null) => void;
  onRollback: (version: number) => Promise<void>;
}

export function VersionsPanel({ workflowId, generation, draft, viewing, onView, onRollback }: Props) {
  const versions = useLoad(() => loadVersions(workflowId), [workflowId, generation]);
  if (versions.error) return <ErrorBanner error={versions.error} onRetry={versions.reload} />;
  if (!versions.data) return <Loading />;
  const list = [...versions.data].sort((a, b) => b.version - a.version);
  return (
    <section className="panel-body" aria-label="Versions">
      {list.length === 0 ? (
        <p className="muted">Nothing published yet. Publish the draft to create version 1.</p>
      ) : (
        <ul className="version-list">
          {list.map((v) => (
            <li key={v.version} className={viewing === v.version ? 'version-current' : ''}>
              <div>
                <strong>Version {v.version}</strong>
                {v.version === list[0]!.version && <Badge value="live" tone="good" />}
                <div className="muted">
                  {formatTime(v.published_at)} · {formatActor(v.published_by)}
                </div>
              </div>
              <div className="row-actions">
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onView(viewing === v.version ? null : v.version)}
                  aria-pressed={viewing === v.version}
                >
                  {viewing === v.version ? 'Back to draft' : 'View'}
                </button>
                {v.version !== list[0]!.version && (
                  <ConfirmButton
                    label="Roll back"
                    className="btn btn-small"
                    question={`Publish version ${v.version}'s graph as a new version?`}
                    confirmLabel={`Publish v${v.version} again`}
                    onConfirm={() => onRollback(v.version)}
                  />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {list.length > 0 && <DiffView workflowId={workflowId} versions={list} draft={draft} />}
    </section>
  );
}

function DiffView({
  workflowId,
  versions,
  draft,
}: {
  workflowId: string;
  versions: VersionItem[];
  draft: () => Graph;
}) {
  const [from, setFrom] = useState(String(versions[1]?.version ?? versions[0]!.version));
  const [to, setTo] = useState('draft');
  const graphOf = (v: string) =>
    v === 'draft' ? Promise.resolve(draft()) : loadVersionGraph(workflowId, Number(v));
  const diff = useLoad(
    async () => diffGraphs(await graphOf(from), await graphOf(to)),
    [from, to, workflowId],
  );
  const options = [
    <option key="draft" value="draft">
      Draft
    </option>,
    ...versions.map((v) => (
      <option key={v.version} value={String(v.version)}>
        Version {v.version}
      </option>
    )),
  ];
  return (
    <div className="diff">
      <h3>Compare</h3>
      <div className="grid-2">
        <div className="field">
          <label htmlFor="diff-from">From</label>
          <select id="diff-from" value={from} onChange={(e) => setFrom(e.target.value)}>
            {options}
          </select>
        </div>
        <div className="field">
          <label htmlFor="diff-to">To</label>
          <select id="diff-to" value={to} onChange={(e) => setTo(e.target.value)}>
            {options}
          </select>
        </div>
      </div>
      {diff.error && <ErrorBanner error={diff.error} onRetry={diff.reload} />}
      {diff.data && isEmptyDiff(diff.data) && <p className="muted">No changes in behaviour.</p>}
      {diff.data && !isEmptyDiff(diff.data) && <DiffChanges diff={diff.data} />}
      {diff.data && diff.data.movedNodes.length > 0 && (
        <p className="muted">Moved on the canvas: {diff.data.movedNodes.join(', ')}</p>
      )}
    </div>
  );
}

/** What changed between the two: steps added, removed and reconfigured, then connections added and removed. */
function DiffChanges({ diff }: { diff: GraphDiff }) {
  return (
    <ul className="diff-list" aria-label="Changes">
      {diff.addedNodes.map((n) => (
        <li key={`+${n.id}`} className="diff-add">
          + step <code>{n.id}</code> ({n.type})
        </li>
      ))}
      {diff.removedNodes.map((n) => (
        <li key={`-${n.id}`} className="diff-remove">
          − step <code>{n.id}</code> ({n.type})
        </li>
      ))}
      {diff.changedNodes.map((c) => (
        <li key={`~${c.id}`} className="diff-change">
          ~ step <code>{c.id}</code>: {c.keys.join(', ')}
        </li>
      ))}
      {diff.addedEdges.map((k) => (
        <li key={`+${k}`} className="diff-add">
          + {k}
        </li>
      ))}
      {diff.removedEdges.map((k) => (
        <li key={`-${k}`} className="diff-remove">
          − {k}
        </li>
      ))}
    </ul>
  );
}
