// One step on the canvas: its type and id, a line of what it does, an entry handle on top and one
// named exit handle per way out along the bottom (the type's exits and those its config names),
// a count of validation findings, and the step numbers of a simulated run that passed through it.
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { handleLabel, isNodeType, NODE_KINDS, hasInput } from './node-catalog';
import { exitsOf, type StepNode } from './graph';

function summary(type: string, config: Record<string, unknown> | undefined): string {
  const c = config ?? {};
  const s = (k: string) => (typeof c[k] === 'string' ? (c[k] as string) : '');
  switch (type) {
    case 'speak':
      return s('text');
    case 'dtmf':
      return [s('prompt'), c.save_to_variable ? `→ ${s('save_to_variable')}` : ''].filter(Boolean).join(' ');
    case 'webhook':
      return `${s('method') || 'POST'} ${s('url')}`;
    case 'transform':
      return `${s('operation')} → ${s('save_to_variable')}`;
    case 'dial':
      return s('to');
    case 'transfer_to_human':
    case 'transfer_call':
      return s('destination');
    case 'set_variables':
      return Object.keys((c.variables as object) ?? {}).join(', ');
    case 'agent':
      return s('instructions');
    default:
      return '';
  }
}

export function StepNodeView({ data, selected }: NodeProps<StepNode>) {
  const { node, errors = [], warnings = [], visited = [] } = data;
  const kind = isNodeType(node.type) ? NODE_KINDS[node.type] : undefined;
  const exits = exitsOf(node);
  const text = summary(node.type, node.config);
  const cls = [
    'step',
    `step-${kind?.group.toLowerCase() ?? 'unknown'}`,
    selected ? 'step-selected' : '',
    errors.length ? 'step-error' : warnings.length ? 'step-warning' : '',
    visited.length ? 'step-visited' : '',
  ].join(' ');
  return (
    <div className={cls} data-node-id={node.id}>
      {hasInput(node.type) && (
        <Handle
          type="target"
          position={Position.Top}
          id="in"
          className="step-in"
          isConnectable={!data.readOnly}
        />
      )}
      <div className="step-head">
        <span className="step-type">{kind?.label ?? node.type}</span>
        {visited.length > 0 && (
          <span className="step-visits" title="Steps of the simulated run">
            {visited.map((n) => `#${n}`).join(' ')}
          </span>
        )}
        {errors.length > 0 && (
          <span className="step-badge step-badge-error" title={errors.map((e) => e.message).join('\n')}>
            {errors.length} error{errors.length > 1 ? 's' : ''}
          </span>
        )}
        {!errors.length && warnings.length > 0 && (
          <span className="step-badge step-badge-warn" title={warnings.map((e) => e.message).join('\n')}>
            {warnings.length} warning{warnings.length > 1 ? 's' : ''}
          </span>
        )}
      </div>
      <div className="step-id mono">{node.id}</div>
      {text && <div className="step-summary">{text}</div>}
      {errors.length > 0 && <div className="step-finding">{errors[0]!.message}</div>}
      {exits.length > 0 && (
        <div className="step-exits">
          {exits.map((h) => (
            <div className="step-exit" key={h}>
              <span className="step-exit-label">{handleLabel(h)}</span>
              <Handle
                type="source"
                position={Position.Bottom}
                id={h}
                className="step-out"
                data-handle={h}
                isConnectable={!data.readOnly}
              />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
