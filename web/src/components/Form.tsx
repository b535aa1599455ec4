// A form that submits to the API and shows what went wrong where it went wrong: each field shows
// the 422 `errors` keyed by its name (or by a path under it), and a banner above carries the
// message and any errors no field on screen names. Nothing typed is cleared on an error: values
// live in the page's state, and only the page decides to reset them after a success.
import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, explain } from '../api/errors';

interface FormState {
  errors: Record<string, string[]>;
  idPrefix: string;
}

const FormContext = createContext<FormState>({ errors: {}, idPrefix: 'f' });

let formCount = 0;

/** Errors for a field named `name`: those keyed by it, and by paths below it (`name.0`, `name.x`). */
export function errorsFor(errors: Record<string, string[]>, name: string): string[] {
  const out: string[] = [];
  for (const [key, list] of Object.entries(errors)) {
    if (key === name || key.startsWith(name + '.')) out.push(...list);
  }
  return out;
}

export function useFieldErrors(name: string): { messages: string[]; id: string } {
  const ctx = useContext(FormContext);
  return { messages: errorsFor(ctx.errors, name), id: `${ctx.idPrefix}-${name.replace(/[^\w-]/g, '_')}` };
}

interface FormProps {
  onSubmit: () => Promise<void>;
  children: ReactNode;
  submitLabel: string;
  onCancel?: () => void;
  /** Shown on the submit button while the request runs. */
  busyLabel?: string;
  /** An accessible name for the form. */
  label: string;
  className?: string;
  /** Extra buttons beside submit. */
  actions?: ReactNode;
}

export function Form({
  onSubmit,
  children,
  submitLabel,
  onCancel,
  busyLabel,
  label,
  className,
  actions,
}: FormProps) {
  const { error, busy, submit } = useSubmit(onSubmit);
  const [unplaced, setUnplaced] = useState<string[]>([]);
  const formRef = useRef<HTMLFormElement>(null);
  const bannerRef = useRef<HTMLDivElement>(null);
  const idPrefix = useRef(`form${++formCount}`).current;

  // After an error renders, find which errors no field on screen shows, and list them in the banner.
  useLayoutEffect(() => {
    if (!error || !formRef.current) {
      setUnplaced([]);
      return;
    }
    const names = [...formRef.current.querySelectorAll<HTMLElement>('[data-field]')].map(
      (el) => el.dataset.field!,
    );
    const loose: string[] = [];
    for (const [key, list] of Object.entries(error.fieldErrors)) {
      if (!names.some((n) => key === n || key.startsWith(n + '.'))) {
        for (const m of list) loose.push(key === 'quota' ? m : `${key}: ${m}`);
      }
    }
    setUnplaced(loose);
    bannerRef.current?.focus();
  }, [error]);

  return (
    <FormContext.Provider value={{ errors: error?.fieldErrors ?? {}, idPrefix }}>
      <form ref={formRef} className={className ?? 'form'} onSubmit={submit} noValidate aria-label={label}>
        {error && (
          <div className="banner banner-error" role="alert" tabIndex={-1} ref={bannerRef}>
            <strong>{error.status === 422 ? 'Please fix the highlighted fields.' : explain(error)}</strong>
            {error.status === 422 && Object.keys(error.fieldErrors).length === 0 && (
              <div>{error.message}</div>
            )}
            {unplaced.length > 0 && (
              <ul>
                {unplaced.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {children}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? (busyLabel ?? 'Saving…') : submitLabel}
          </button>
          {actions}
          {onCancel && (
            <button type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
    </FormContext.Provider>
  );
}

/** Runs the form's request once at a time, and keeps what went wrong (any error as an ApiError). */
function useSubmit(onSubmit: () => Promise<void>) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      await onSubmit();
      setError(null);
    } catch (err) {
      // Anything but an ApiError is a mistake on this side (not a lost connection): say what it was.
      setError(
        err instanceof ApiError ? err : new ApiError(400, err instanceof Error ? err.message : String(err)),
      );
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, submit };
}
