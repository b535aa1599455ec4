// Copies a value (a URI, a key, a secret) and says so where screen readers hear it.
import { useState } from 'react';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'done' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('done');
    } catch {
      setCopied('failed');
    }
    window.setTimeout(() => setCopied('idle'), 2000);
  };
  return (
    <button
      type="button"
      className="btn btn-small"
      onClick={copy}
      aria-label={`${label}: ${copied === 'done' ? 'copied' : 'copy to clipboard'}`}
    >
      {copied === 'done' ? 'Copied' : copied === 'failed' ? 'Select and copy' : label}
      <span className="sr-only" role="status">
        {copied === 'done' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A value shown once (a key, a signing secret): monospace, selectable, with a copy button. */
export function SecretOnce({
  title,
  value,
  children,
  onDone,
}: {
  title: string;
  value: string;
  children?: React.ReactNode;
  onDone: () => void;
}) {
  return (
    <div className="secret-once" role="region" aria-label={title}>
      <h2>{title}</h2>
      <p>{children ?? 'Copy it now: it is shown only this once.'}</p>
      <div className="copy-row">
        <code className="secret-value" data-testid="secret-value">
          {value}
        </code>
        <CopyButton value={value} />
      </div>
      <button type="button" className="btn" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}
