// A destructive action asked twice, inline (no modal to trap focus in): the first press asks,
// the second does it; Escape or "Keep" backs out. Its failure (409 naming the dependency) shows
// beside it.
import { useState } from 'react';
import { ApiError, explain } from '../api/errors';

interface ConfirmButtonProps {
  label: string;
  question: string;
  confirmLabel?: string;
  onConfirm: () => Promise<void>;
  className?: string;
}

export function ConfirmButton({
  label,
  question,
  confirmLabel = label,
  onConfirm,
  className,
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async () => {
    setBusy(true);
    try {
      await onConfirm();
      setAsking(false);
      setError(null);
    } catch (err) {
      setError(
        err instanceof ApiError ? err : new ApiError(400, err instanceof Error ? err.message : String(err)),
      );
    } finally {
      setBusy(false);
    }
  };
  if (!asking) {
    return (
      <span className="confirm">
        <button
          type="button"
          className={className ?? 'btn btn-danger-quiet btn-small'}
          onClick={() => setAsking(true)}
        >
          {label}
        </button>
        {error && (
          <span className="inline-error" role="alert">
            {explain(error)}
          </span>
        )}
      </span>
    );
  }
  return (
    <span
      className="confirm confirm-asking"
      role="group"
      aria-label={question}
      onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}
    >
      <span className="confirm-question">{question}</span>
      <button type="button" className="btn btn-danger btn-small" onClick={run} disabled={busy} autoFocus>
        {busy ? 'Working…' : confirmLabel}
      </button>
      <button type="button" className="btn btn-small" onClick={() => setAsking(false)}>
        Keep
      </button>
      {error && (
        <span className="inline-error" role="alert">
          {explain(error)}
        </span>
      )}
    </span>
  );
}
