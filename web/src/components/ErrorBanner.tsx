// How a page shows a failed load: the explained error and, where trying again can help (a lost
// connection, 429, 5xx), a Retry button, instead of a blank page.
import type { ApiError } from '../api/errors';
import { explain } from '../api/errors';

export function ErrorBanner({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const retryable = error.isNetwork || error.status === 429 || error.status >= 500;
  return (
    <div className="banner banner-error" role="alert">
      <span>{explain(error)}</span>
      {onRetry && retryable && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}
