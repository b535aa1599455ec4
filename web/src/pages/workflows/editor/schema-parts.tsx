// The building blocks of the generated configuration forms: the schema types, how a schema maps
// to a widget (kindOf), labels and hints read off the schema, a field's frame (label, hint, the
// validator's findings beside it), and the two leaf widgets with their own row state: key/value
// maps and the free-form JSON box.
import { useState, type ReactNode } from 'react';
import { messagesFor } from './findings';
import type { Finding } from './graph';

export type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
};

export interface FormContext {
  nodeId: string;
  findings: Finding[];
  /** Choices for fields that name something of the project (e.g. `agent_id` → the agents). */
  pickers: Record<string, { value: string; label: string }[]>;
}

export type Kind =
  'enum' | 'tagged' | 'string' | 'number' | 'boolean' | 'record' | 'object' | 'array' | 'json';

export function kindOf(schema: JsonSchema): Kind {
  if (schema.anyOf) {
    if (schema.anyOf.every((s) => s.const !== undefined)) return 'enum';
    if (schema.anyOf.every((s) => s.type === 'object' && s.properties?.type?.const !== undefined))
      return 'tagged';
    if (schema.anyOf.some((s) => s.type === 'object' && s.properties && Object.keys(s.properties).length))
      return 'object';
    return 'json';
  }
  if (schema.type === 'string') return 'string';
  if (schema.type === 'number' || schema.type === 'integer') return 'number';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return 'array';
  if (schema.type === 'object' && schema.patternProperties) return 'record';
  if (schema.type === 'object' && schema.properties && Object.keys(schema.properties).length) return 'object';
  return 'json';
}

/** The object variant of a union (an agent exit is `{handle, description}` or a bare handle). */
export function objectSchema(schema: JsonSchema): JsonSchema {
  return schema.anyOf?.find((s) => s.type === 'object' && s.properties) ?? schema;
}

export function humanize(key: string): string {
  const text = key.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const isTemplate = (s: JsonSchema) => s.description?.endsWith('(template)') ?? false;
export const hintOf = (s: JsonSchema) => {
  const d = s.description?.replace(/ ?\(template\)$/, '');
  const parts = [
    d,
    isTemplate(s) ? 'template: {{variable}}' : '',
    s.default !== undefined ? `default ${String(s.default)}` : '',
  ];
  return parts.filter(Boolean).join(' · ') || undefined;
};

export function fieldId(nodeId: string, path: string): string {
  return `cfg-${nodeId}-${path}`.replace(/[^\w-]/g, '_');
}

/** A scalar typed into a map value: numbers, booleans and null as such, anything else a string. */
export function parseScalar(text: string): unknown {
  const t = text.trim();
  if (t === 'true' || t === 'false' || t === 'null' || /^-?\d+(\.\d+)?$/.test(t)) return JSON.parse(t);
  return text;
}

export interface FieldProps {
  label: string;
  path: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (value: unknown) => void;
  required: boolean;
  ctx: FormContext;
}

/** What a field's control carries: its id, and whether and by what it is described as invalid. */
type ControlProps = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string };

/** A field's label, its control (`children`), hint and findings. */
export function Frame({
  label,
  path,
  schema,
  required,
  ctx,
  children,
}: Omit<FieldProps, 'value' | 'onChange'> & {
  children: (control: ControlProps) => ReactNode;
}) {
  const id = fieldId(ctx.nodeId, path);
  const messages = messagesFor(ctx.findings, ctx.nodeId, path);
  const hint = hintOf(schema);
  const describedBy = [hint ? `${id}-hint` : '', messages.length ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={`field ${messages.length ? 'field-invalid' : ''}`} data-config-field={path}>
      <label htmlFor={id}>
        {label}
        {required && (
          <span className="required-mark" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children({
        id,
        'aria-invalid': messages.length > 0 || undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {messages.length > 0 && (
        <div className="field-error" id={`${id}-error`}>
          {messages.join(' ')}
        </div>
      )}
    </div>
  );
}

export function RecordField({ label, path, schema, value, onChange, ctx }: FieldProps) {
  const obj = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const valueSchema = Object.values(schema.patternProperties ?? {})[0] ?? {};
  const scalar = valueSchema.type !== 'string';
  // Rows live here so a half-typed (or empty) key does not vanish; the map sent up skips empty keys.
  const [rows, setRows] = useState(() =>
    Object.entries(obj).map(([k, v]) => ({ key: k, value: typeof v === 'string' ? v : JSON.stringify(v) })),
  );
  const push = (next: { key: string; value: string }[]) => {
    setRows(next);
    const out: Record<string, unknown> = {};
    for (const r of next) if (r.key.trim()) out[r.key.trim()] = scalar ? parseScalar(r.value) : r.value;
    onChange(out);
  };
  const messages = messagesFor(ctx.findings, ctx.nodeId, path);
  return (
    <fieldset className={`config-group ${messages.length ? 'field-invalid' : ''}`} data-config-field={path}>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div className="kv-row" key={i}>
          <input
            aria-label={`${label} ${i + 1} name`}
            value={r.key}
            placeholder="name"
            onChange={(e) => push(rows.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))}
          />
          <input
            aria-label={`${label} ${i + 1} value`}
            value={r.value}
            placeholder={valueSchema.description ?? 'value'}
            onChange={(e) => push(rows.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
          />
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Remove ${label} ${i + 1}`}
            onClick={() => push(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      {messages.length > 0 && <div className="field-error">{messages.join(' ')}</div>}
      <button
        type="button"
        className="btn btn-small"
        onClick={() => setRows([...rows, { key: '', value: '' }])}
      >
        Add to {label.toLowerCase()}
      </button>
    </fieldset>
  );
}

/** Anything the generator has no widget for (a webhook body): JSON when it parses, else text. */
export function JsonField(props: FieldProps) {
  const { value, onChange } = props;
  const [text, setText] = useState(
    value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2),
  );
  return (
    <Frame {...props}>
      {(a) => (
        <textarea
          {...a}
          rows={4}
          className="mono"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            const t = e.target.value.trim();
            if (t === '') return onChange(undefined);
            if (/^[[{]/.test(t)) {
              try {
                return onChange(JSON.parse(t));
              } catch {
                /* keep typing: sent once it parses */
              }
            }
            onChange(e.target.value);
          }}
        />
      )}
    </Frame>
  );
}

/** The whole config form of one node. */
