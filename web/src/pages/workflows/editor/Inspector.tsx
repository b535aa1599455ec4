// The panel beside the canvas for the selected step: its findings, where each exit leads (a
// select per exit: the keyboard way to connect steps), its configuration form generated from the
// schema, and delete. With nothing selected it lists every finding of the graph, each a button
// that selects the step it names.
import { useState, type FormEvent } from 'react';
import { handleLabel, isNodeType, NODE_KINDS } from './node-catalog';
import { exitsOf, type Finding, type LinkEdge, type StepNode } from './graph';
import { SchemaForm, type FormContext, type JsonSchema } from './schema-form';
import { besideField } from './findings';

interface Props {
  node: StepNode | undefined;
  nodes: StepNode[];
  edges: LinkEdge[];
  schemas: Record<string, JsonSchema> | null;
  findings: Finding[];
  pickers: FormContext['pickers'];
  readOnly: boolean;
  onConfig: (id: string, config: Record<string, unknown>) => void;
  onConnect: (source: string, handle: string, target: string | null) => void;
  onDelete: (id: string) => void;
  onSelect: (id: string) => void;
  /** Renames a step; answers why not, or null when done. */
  onRename: (from: string, to: string) => string | null;
}

export function Inspector(p: Props) {
  if (!p.node) return <FindingsList {...p} />;
  const { node: graphNode } = p.node.data;
  const kind = isNodeType(graphNode.type) ? NODE_KINDS[graphNode.type] : undefined;
  const own = p.findings.filter((f) => f.node_id === graphNode.id);
  const exits = exitsOf(graphNode);
  const schema = p.schemas?.[`${graphNode.type}_config`];
  return (
    <section className="inspector" aria-label={`Step ${graphNode.id}`}>
      <div className="inspector-head">
        <h2>{kind?.label ?? graphNode.type}</h2>
        {p.readOnly && <span className="mono muted">{graphNode.id}</span>}
      </div>
      {!p.readOnly && <RenameStep key={graphNode.id} id={graphNode.id} onRename={p.onRename} />}
      {kind && <p className="muted">{kind.purpose}.</p>}
      {own.length > 0 && (
        <ul className="findings" aria-label="Findings on this step">
          {own.map((f, i) => (
            <li key={i} className={f.severity === 'warning' ? 'finding-warning' : 'finding-error'}>
              {f.severity === 'warning' ? 'Warning: ' : 'Error: '}
              <FindingText field={f.field} message={f.message} />
            </li>
          ))}
        </ul>
      )}
      {exits.length > 0 && (
        <StepExits
          id={graphNode.id}
          exits={exits}
          nodes={p.nodes}
          edges={p.edges}
          readOnly={p.readOnly}
          onConnect={p.onConnect}
        />
      )}
      {schema ? (
        <fieldset className="config-fields" disabled={p.readOnly}>
          <legend className="sr-only">Configuration</legend>
          <SchemaForm
            key={graphNode.id}
            schema={schema}
            value={graphNode.config ?? {}}
            onChange={(config) => p.onConfig(graphNode.id, config)}
            ctx={{ nodeId: graphNode.id, findings: p.findings, pickers: p.pickers }}
          />
        </fieldset>
      ) : (
        <p className="muted">Loading the step's schema…</p>
      )}
      {!p.readOnly && (
        <div className="form-actions">
          <button type="button" className="btn btn-danger-quiet" onClick={() => p.onDelete(graphNode.id)}>
            Delete step
          </button>
        </div>
      )}
    </section>
  );
}

/** A select per exit of the step: which step it leads to, or nowhere. */
function StepExits({
  id: stepId,
  exits,
  nodes,
  edges,
  readOnly,
  onConnect,
}: Pick<Props, 'nodes' | 'edges' | 'readOnly' | 'onConnect'> & { id: string; exits: string[] }) {
  return (
    <fieldset className="config-group" disabled={readOnly}>
      <legend>Exits</legend>
      {exits.map((h) => {
        const edge = edges.find((e) => e.source === stepId && (e.sourceHandle ?? 'default') === h);
        const id = `exit-${stepId}-${h}`.replace(/[^\w-]/g, '_');
        return (
          <div className="field field-row" key={h}>
            <label htmlFor={id}>When {handleLabel(h)}, go to</label>
            <select
              id={id}
              value={edge?.target ?? ''}
              onChange={(e) => onConnect(stepId, h, e.target.value || null)}
            >
              <option value="">(nowhere)</option>
              {nodes
                .filter((n) => n.id !== stepId && n.data.node.type !== 'start')
                .map((n) => (
                  <option key={n.id} value={n.id}>
                    {n.id} (
                    {isNodeType(n.data.node.type) ? NODE_KINDS[n.data.node.type].label : n.data.node.type})
                  </option>
                ))}
            </select>
          </div>
        );
      })}
    </fieldset>
  );
}

/** The step's id, editable: Enter or "Rename" renames it and every connection to it. */
function RenameStep({ id, onRename }: { id: string; onRename: Props['onRename'] }) {
  const [value, setValue] = useState(id);
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = `rename-${id}`.replace(/[^\w-]/g, '_');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(onRename(id, value));
  };
  return (
    <form className="rename-step" onSubmit={submit} aria-label="Rename step">
      <div className={`field field-row ${problem ? 'field-invalid' : ''}`}>
        <label htmlFor={inputId}>Step id</label>
        <input
          id={inputId}
          className="mono"
          value={value}
          onChange={(e) => (setValue(e.target.value), setProblem(null))}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${inputId}-error` : undefined}
          spellCheck={false}
        />
        {value !== id && (
          <button type="submit" className="btn btn-small">
            Rename
          </button>
        )}
      </div>
      {problem && (
        <div className="field-error" id={`${inputId}-error`}>
          {problem}
        </div>
      )}
    </form>
  );
}

/**
 * A finding in a list: the field it names once, in code, then the message without that name
 * leading it again ("`save_to_variable`: Required (…)", not "save_to_variable `save_to_variable` is
 * required").
 */
function FindingText({ field, message }: { field: string; message: string }) {
  if (!field) return <>{message}</>;
  return (
    <>
      <code>{field}</code>: {besideField(message, field)}
    </>
  );
}

function FindingsList({ findings, onSelect, nodes }: Props) {
  return (
    <section className="inspector" aria-label="Findings">
      <h2>Findings</h2>
      {findings.length === 0 ? (
        <p className="muted">
          {nodes.length
            ? 'No findings. Select a step to configure it.'
            : 'Add a Start step from the palette to begin.'}
        </p>
      ) : (
        <ul className="findings">
          {findings.map((f, i) => (
            <li key={i} className={f.severity === 'warning' ? 'finding-warning' : 'finding-error'}>
              {f.severity === 'warning' ? 'Warning: ' : 'Error: '}
              {f.node_id ? (
                <button type="button" className="btn-link" onClick={() => onSelect(f.node_id)}>
                  {f.node_id}
                </button>
              ) : (
                <strong>Workflow</strong>
              )}
              {f.field ? ' ' : ': '}
              <FindingText field={f.field} message={f.message} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
