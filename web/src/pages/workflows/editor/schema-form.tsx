// A node's configuration form, generated from its JSON Schema (GET /workflow-schema's
// `$defs.<type>_config`): strings (templates as text areas), numbers, switches, choices from
// `anyOf` constants, tagged unions (webhook `auth`), lists (branches, exits, outputs) and
// key/value maps (variables, headers). Each field shows the validator's findings for its path
// (`exits[1].handle`, `variables.vip`) beside itself, as the API names them.
import {
  fieldId,
  Frame,
  hintOf,
  humanize,
  isTemplate,
  JsonField,
  kindOf,
  objectSchema,
  RecordField,
  type FieldProps,
  type FormContext,
  type JsonSchema,
} from './schema-parts';
import { messagesFor } from './findings';

export { kindOf, humanize, parseScalar, type FormContext, type JsonSchema } from './schema-parts';

function SchemaField(props: FieldProps) {
  const { label, path, schema, value, ctx } = props;
  const kind = kindOf(schema);
  const key =
    path
      .split(/[.[\]]/)
      .filter(Boolean)
      .pop() ?? path;
  const picker = ctx.pickers[key];

  if (kind === 'string' && picker) return <PickerField {...props} options={picker} />;
  switch (kind) {
    case 'string':
      return <StringField {...props} />;
    case 'number':
      return <NumberField {...props} />;
    case 'boolean':
      return <BooleanField {...props} />;
    case 'enum':
      return <EnumField {...props} />;
    case 'tagged':
      return <TaggedField {...props} />;
    case 'object':
      return (
        <ObjectFields
          {...props}
          schema={objectSchema(schema)}
          value={typeof value === 'string' ? { handle: value } : value}
          legend={label}
        />
      );
    case 'array':
      return <ArrayField {...props} />;
    case 'record':
      return <RecordField {...props} />;
    default:
      return <JsonField {...props} />;
  }
}

/** A string chosen from the editor's own list (an agent by name for `agent_id`). */
function PickerField(props: FieldProps & { options: { value: string; label: string }[] }) {
  const { value, onChange, required, options } = props;
  return (
    <Frame {...props}>
      {(a) => (
        <select
          {...a}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value)}
          aria-required={required || undefined}
        >
          <option value="">Choose…</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Frame>
  );
}

/** A string: a text area for a template, else one line; empty and optional is left out. */
function StringField(props: FieldProps) {
  const { schema, value, onChange, required } = props;
  const Input = isTemplate(schema) ? 'textarea' : 'input';
  return (
    <Frame {...props}>
      {(a) => (
        <Input
          {...a}
          value={typeof value === 'string' ? value : ''}
          rows={isTemplate(schema) ? 2 : undefined}
          onChange={(e) => onChange(e.target.value === '' && !required ? undefined : e.target.value)}
          aria-required={required || undefined}
        />
      )}
    </Frame>
  );
}

/** A number within the schema's bounds (whole for an integer); empty is left out. */
function NumberField(props: FieldProps) {
  const { schema, value, onChange } = props;
  return (
    <Frame {...props}>
      {(a) => (
        <input
          {...a}
          type="number"
          value={typeof value === 'number' ? value : ''}
          step={schema.type === 'integer' ? 1 : 'any'}
          min={schema.minimum}
          max={schema.maximum}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      )}
    </Frame>
  );
}

/** A switch, its label beside it, its hint and findings under it. */
function BooleanField({ label, path, schema, value, onChange, ctx }: FieldProps) {
  const id = fieldId(ctx.nodeId, path);
  const messages = messagesFor(ctx.findings, ctx.nodeId, path);
  const hint = hintOf(schema);
  return (
    <div className={`field ${messages.length ? 'field-invalid' : ''}`} data-config-field={path}>
      <div className="checkbox-row">
        <input
          id={id}
          type="checkbox"
          checked={typeof value === 'boolean' ? value : schema.default === true}
          onChange={(e) => onChange(e.target.checked)}
          aria-invalid={messages.length > 0 || undefined}
          aria-describedby={hint ? `${id}-hint` : undefined}
        />
        <label htmlFor={id}>{label}</label>
      </div>
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {messages.length > 0 && <div className="field-error">{messages.join(' ')}</div>}
    </div>
  );
}

/** One of the schema's constants (`anyOf`), or its default. */
function EnumField(props: FieldProps) {
  const { schema, value, onChange } = props;
  return (
    <Frame {...props}>
      {(a) => (
        <select
          {...a}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        >
          <option value="">
            {schema.default !== undefined ? `Default (${String(schema.default)})` : 'Choose…'}
          </option>
          {schema.anyOf!.map((s) => (
            <option key={String(s.const)} value={String(s.const)}>
              {humanize(String(s.const))}
            </option>
          ))}
        </select>
      )}
    </Frame>
  );
}

function TaggedField(props: FieldProps) {
  const { label, path, schema, value, onChange, ctx } = props;
  const current = (value as { type?: string } | undefined)?.type ?? '';
  const variant = schema.anyOf!.find((s) => s.properties!.type!.const === current);
  return (
    <fieldset className="config-group">
      <legend>{label}</legend>
      <Frame {...props} label="Type" path={`${path}.type`} schema={{}} required={false}>
        {(a) => (
          <select
            {...a}
            value={current}
            onChange={(e) =>
              onChange(e.target.value ? { ...(value as object), type: e.target.value } : undefined)
            }
          >
            <option value="">None</option>
            {schema.anyOf!.map((s) => (
              <option key={String(s.properties!.type!.const)} value={String(s.properties!.type!.const)}>
                {humanize(String(s.properties!.type!.const))}
              </option>
            ))}
          </select>
        )}
      </Frame>
      {variant && <ObjectFields {...props} schema={variant} skip={['type']} ctx={ctx} bare />}
    </fieldset>
  );
}

export function ObjectFields({
  path,
  schema,
  value,
  onChange,
  ctx,
  skip = [],
  legend,
  bare,
}: FieldProps & {
  skip?: string[];
  legend?: string;
  bare?: boolean;
}) {
  const obj = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<
    string,
    unknown
  >;
  const fields = Object.entries(schema.properties ?? {})
    .filter(([k]) => !skip.includes(k))
    .map(([k, s]) => (
      <SchemaField
        key={k}
        label={humanize(k)}
        path={path ? `${path}.${k}` : k}
        schema={s}
        value={obj[k]}
        required={schema.required?.includes(k) ?? false}
        ctx={ctx}
        onChange={(v) => {
          const next = { ...obj };
          if (v === undefined) delete next[k];
          else next[k] = v;
          onChange(next);
        }}
      />
    ));
  if (bare || !legend) return <>{fields}</>;
  return (
    <fieldset className="config-group">
      <legend>{legend}</legend>
      {fields}
    </fieldset>
  );
}

function ArrayField({ label, path, schema, value, onChange, ctx }: FieldProps) {
  const list = Array.isArray(value) ? value : [];
  const item = schema.items ?? {};
  const messages = messagesFor(ctx.findings, ctx.nodeId, path).filter(() => list.length === 0);
  const blank = kindOf(item) === 'object' ? {} : '';
  const noun = label.replace(/s$/, '').toLowerCase();
  return (
    <fieldset className={`config-group ${messages.length ? 'field-invalid' : ''}`} data-config-field={path}>
      <legend>{label}</legend>
      {list.map((entry, i) => (
        <div className="config-item" key={i}>
          <SchemaField
            label={`${humanize(noun)} ${i + 1}`}
            path={`${path}[${i}]`}
            schema={item}
            value={entry}
            required
            ctx={ctx}
            onChange={(v) => onChange(list.map((x, j) => (j === i ? v : x)))}
          />
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onChange(list.filter((_, j) => j !== i))}
            aria-label={`Remove ${noun} ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      {messages.length > 0 && <div className="field-error">{messages.join(' ')}</div>}
      <button type="button" className="btn btn-small" onClick={() => onChange([...list, blank])}>
        Add {noun}
      </button>
    </fieldset>
  );
}

export function SchemaForm({
  schema,
  value,
  onChange,
  ctx,
}: {
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  ctx: FormContext;
}) {
  if (!schema.properties || Object.keys(schema.properties).length === 0) {
    return <p className="muted">Nothing to configure.</p>;
  }
  return (
    <ObjectFields
      label=""
      path=""
      schema={schema}
      value={value}
      required
      ctx={ctx}
      onChange={(v) => onChange(v as Record<string, unknown>)}
    />
  );
}
