// Form fields with a label, a hint and the API's errors for their name beside them; each marks
// itself invalid for assistive technology and points at its message (aria-describedby).
import type { ReactNode } from 'react';
import { useFieldErrors } from './Form';

interface FieldFrameProps {
  name: string;
  label: string;
  hint?: ReactNode;
  children: (props: { id: string; invalid: boolean; describedBy: string | undefined }) => ReactNode;
  className?: string;
}

export function FieldFrame({ name, label, hint, children, className }: FieldFrameProps) {
  const { messages, id } = useFieldErrors(name);
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = messages.length ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${messages.length ? 'field-invalid' : ''} ${className ?? ''}`} data-field={name}>
      <label htmlFor={id}>{label}</label>
      {children({ id, invalid: messages.length > 0, describedBy })}
      {hint && (
        <div className="field-hint" id={hintId}>
          {hint}
        </div>
      )}
      {errorId && (
        <div className="field-error" id={errorId}>
          {messages.join(' ')}
        </div>
      )}
    </div>
  );
}

interface TextFieldProps {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  type?: 'text' | 'password' | 'url' | 'tel' | 'number' | 'date' | 'time' | 'email';
  placeholder?: string;
  required?: boolean;
  autoComplete?: string;
  autoFocus?: boolean;
  className?: string;
  inputMode?: 'numeric' | 'decimal' | 'tel' | 'text';
  step?: string;
  list?: string;
}

export function TextField({
  name,
  label,
  value,
  onChange,
  hint,
  type = 'text',
  className,
  ...rest
}: TextFieldProps) {
  return (
    <FieldFrame name={name} label={label} hint={hint} className={className}>
      {({ id, invalid, describedBy }) => (
        <input
          id={id}
          name={name}
          type={type}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          {...rest}
        />
      )}
    </FieldFrame>
  );
}

interface TextAreaProps {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  rows?: number;
  required?: boolean;
  className?: string;
  placeholder?: string;
}

export function TextArea({
  name,
  label,
  value,
  onChange,
  hint,
  rows = 4,
  className,
  ...rest
}: TextAreaProps) {
  return (
    <FieldFrame name={name} label={label} hint={hint} className={className}>
      {({ id, invalid, describedBy }) => (
        <textarea
          id={id}
          name={name}
          rows={rows}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          {...rest}
        />
      )}
    </FieldFrame>
  );
}

export interface Option {
  value: string;
  label: string;
}

interface SelectFieldProps {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: Option[];
  hint?: ReactNode;
  /** A first, empty choice (e.g. "Any project"). */
  emptyLabel?: string;
  required?: boolean;
  disabled?: boolean;
  className?: string;
}

export function SelectField({
  name,
  label,
  value,
  onChange,
  options,
  hint,
  emptyLabel,
  className,
  required,
  disabled,
}: SelectFieldProps) {
  return (
    <FieldFrame name={name} label={label} hint={hint} className={className}>
      {({ id, invalid, describedBy }) => (
        <select
          id={id}
          name={name}
          value={value}
          required={required}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
        >
          {emptyLabel !== undefined && <option value="">{emptyLabel}</option>}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

interface CheckboxGroupProps {
  name: string;
  legend: string;
  options: Option[];
  value: string[];
  onChange: (value: string[]) => void;
  hint?: ReactNode;
}

export function CheckboxGroup({ name, legend, options, value, onChange, hint }: CheckboxGroupProps) {
  const { messages, id } = useFieldErrors(name);
  return (
    <fieldset
      className={`field checkbox-group ${messages.length ? 'field-invalid' : ''}`}
      data-field={name}
      aria-describedby={messages.length ? `${id}-error` : undefined}
    >
      <legend>{legend}</legend>
      <div className="checkbox-row">
        {options.map((o) => (
          <label key={o.value} className="checkbox">
            <input
              type="checkbox"
              name={name}
              value={o.value}
              checked={value.includes(o.value)}
              onChange={(e) =>
                onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))
              }
            />
            {o.label}
          </label>
        ))}
      </div>
      {hint && <div className="field-hint">{hint}</div>}
      {messages.length > 0 && (
        <div className="field-error" id={`${id}-error`}>
          {messages.join(' ')}
        </div>
      )}
    </fieldset>
  );
}

/** One yes/no choice, its label beside the box; the API's errors for `name` below it. */
export function CheckboxField({
  name,
  label,
  checked,
  onChange,
  hint,
}: {
  name: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
}) {
  const { messages, id } = useFieldErrors(name);
  const describedBy = [hint && `${id}-hint`, messages.length && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className={`field ${messages.length ? 'field-invalid' : ''}`} data-field={name}>
      <label className="checkbox">
        <input
          id={id}
          type="checkbox"
          name={name}
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-invalid={messages.length > 0 || undefined}
          aria-describedby={describedBy || undefined}
        />
        {label}
      </label>
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

type StringKeys<D> = { [P in keyof D]: D[P] extends string ? P : never }[keyof D] & string;

/**
 * Binds fields to a form's draft: `field('greeting')` is the `name` (the request field it fills,
 * so the API's 422 errors for it land beside it), `value` and `onChange` of the field that edits
 * `draft.greeting`.
 */
export function fieldBinder<D extends object>(draft: D, onChange: (next: D) => void) {
  return <K extends StringKeys<D>>(key: K) => ({
    name: key,
    value: draft[key] as string,
    onChange: (value: string) => onChange({ ...draft, [key]: value }),
  });
}
