// The palette: every node type, grouped as Studio users expect (flow, talk, logic, data,
// telephony). Drag one onto the canvas, or press Enter/Space on it to add it beside the
// selected step (the keyboard path); either way the new step is selected for configuring.
import { NODE_KINDS, NODE_TYPES, type NodeType } from './node-catalog';

export const DRAG_TYPE = 'application/x-switchboard-node';
const GROUPS = ['Flow', 'Talk', 'Logic', 'Data', 'Telephony'] as const;

export function Palette({ onAdd, disabled }: { onAdd: (type: NodeType) => void; disabled?: boolean }) {
  return (
    <nav className="palette" aria-label="Add a step">
      <h2 className="palette-title">Add a step</h2>
      {GROUPS.map((group) => (
        <div className="palette-group" key={group}>
          <div className="palette-group-title" aria-hidden="true">
            {group}
          </div>
          <ul aria-label={group}>
            {NODE_TYPES.filter((t) => NODE_KINDS[t].group === group).map((type) => (
              <li key={type}>
                <button
                  type="button"
                  className={`palette-item palette-${group.toLowerCase()}`}
                  draggable={!disabled}
                  disabled={disabled}
                  data-node-type={type}
                  onDragStart={(e) => {
                    e.dataTransfer.setData(DRAG_TYPE, type);
                    e.dataTransfer.effectAllowed = 'move';
                  }}
                  onClick={() => onAdd(type)}
                  title={NODE_KINDS[type].purpose}
                  aria-label={`Add ${NODE_KINDS[type].label}: ${NODE_KINDS[type].purpose}`}
                >
                  <span className="palette-label">{NODE_KINDS[type].label}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
