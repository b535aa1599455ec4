// Variables as rows of key and value (dispatch rule seeds, call variables). Values that parse as
// JSON numbers, booleans or objects are sent as such; anything else is a string.
import { useId } from 'react';
import { useFieldErrors } from './Form';

export interface Pair {
  key: string;
  value: string;
}

export function pairsOf(object: Record<string, unknown> | undefined): Pair[] {
  return Object.entries(object ?? {}).map(([key, value]) => ({
    key,
    value: typeof value === 'string' ? value : JSON.stringify(value),
  }));
}

export function objectOf(pairs: Pair[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of pairs) {
    if (!key.trim()) continue;
    out[key.trim()] = parseValue(value);
  }
  return out;
}

function parseValue(text: string): unknown {
  const t = text.trim();
  if (t === 'true' || t === 'false' || t === 'null' || /^-?\d+(\.\d+)?$/.test(t) || /^[[{]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

export function KeyValueEditor({
  name,
  legend,
  pairs,
  onChange,
}: {
  name: string;
  legend: string;
  pairs: Pair[];
  onChange: (pairs: Pair[]) => void;
}) {
  const { messages, id } = useFieldErrors(name);
  const base = useId();
  const set = (i: number, patch: Partial<Pair>) =>
    onChange(pairs.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  return (
    <fieldset className={`field kv ${messages.length ? 'field-invalid' : ''}`} data-field={name}>
      <legend>{legend}</legend>
      {pairs.length === 0 && <p className="muted">None.</p>}
      {pairs.map((p, i) => (
        <div className="kv-row" key={i}>
          <label className="sr-only" htmlFor={`${base}-k${i}`}>
            {legend} {i + 1} name
          </label>
          <input
            id={`${base}-k${i}`}
            placeholder="name"
            value={p.key}
            onChange={(e) => set(i, { key: e.target.value })}
          />
          <label className="sr-only" htmlFor={`${base}-v${i}`}>
            {legend} {i + 1} value
          </label>
          <input
            id={`${base}-v${i}`}
            placeholder="value"
            value={p.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="btn btn-small btn-quiet"
            onClick={() => onChange(pairs.filter((_, j) => j !== i))}
            aria-label={`Remove ${p.key || `row ${i + 1}`}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn btn-small"
        onClick={() => onChange([...pairs, { key: '', value: '' }])}
      >
        Add variable
      </button>
      {messages.length > 0 && (
        <div className="field-error" id={`${id}-error`}>
          {messages.join(' ')}
        </div>
      )}
    </fieldset>
  );
}
