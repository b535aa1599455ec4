// Sign-in with an API key. The key is checked against the API (a cheap read) before it is kept,
// so a typo is caught here rather than on the first page.
import { useState } from 'react';
import { ApiError, explain } from '../api/errors';
import { isWellFormedKey } from './session-key';
import { useAuth } from './AuthContext';

export function SignInPage({ check }: { check: (key: string) => Promise<void> }) {
  const { signIn, reason } = useAuth();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const key = value.trim();
    if (!isWellFormedKey(key)) {
      setError('An API key starts with pk_live_ followed by letters, digits, - and _.');
      return;
    }
    setBusy(true);
    try {
      await check(key);
      signIn(key);
    } catch (err) {
      setError(
        err instanceof ApiError
          ? err.status === 401
            ? 'This key is not valid: it may have been revoked.'
            : explain(err)
          : String(err),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-card">
        <div className="brand brand-large" aria-hidden="true">
          <span className="brand-mark" /> Switchboard
        </div>
        <h1>Sign in</h1>
        <p className="muted">
          Use an API key of your workspace. The first <code>npm start</code> printed one, with a sign-in link.
          The key stays in this tab only and is forgotten when you close it.
        </p>
        {reason === 'revoked' && (
          <div className="banner banner-warn" role="status">
            The API refused the key (missing, malformed or revoked). Sign in again.
          </div>
        )}
        <form onSubmit={submit} noValidate aria-label="Sign in">
          <div className={`field ${error ? 'field-invalid' : ''}`}>
            <label htmlFor="api-key">API key</label>
            <input
              id="api-key"
              name="api-key"
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="pk_live_…"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'api-key-error' : undefined}
              autoFocus
            />
            {error && (
              <div className="field-error" id="api-key-error" role="alert">
                {error}
              </div>
            )}
          </div>
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
