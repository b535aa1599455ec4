// Simulate: run the saved draft on the text channel without a phone (POST /workflows/{id}/simulate),
// seeded with variables and a list of inputs (one per line; `#1234` or `dtmf:1234` sends keypad
// digits), then show the messages, the final variables, and light up the path on the canvas.
import { useState } from 'react';
import { api, call } from '../../../api/client';
import { ApiError, explain } from '../../../api/errors';
import { KeyValueEditor, objectOf, type Pair } from '../../../components/KeyValueEditor';
import { TurnContent } from '../../../components/Transcript';

export interface SimulationResult {
  status: string;
  path: string[];
  variables: Record<string, unknown>;
  messages: { role: string; content: string; agent_name?: string; latency_ms?: number }[];
  error?: unknown;
}

type Input = { text: string } | { dtmf: string };

/** The inputs box, one input per line: `dtmf:123#` (or `#123`, a leading #) are digits, anything else text. */
export function parseInputs(text: string): Input[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const digits = /^(?:dtmf:\s*|#)([0-9*#A-D]+)$/i.exec(l)?.[1];
      return digits ? { dtmf: digits.toUpperCase() } : { text: l };
    });
}

export function SimulatePanel({
  workflowId,
  beforeRun,
  onResult,
}: {
  workflowId: string;
  /** Saves the draft first, so what runs is what is on the canvas. */
  beforeRun: () => Promise<void>;
  onResult: (result: SimulationResult | null) => void;
}) {
  const [pairs, setPairs] = useState<Pair[]>([]);
  const [inputs, setInputs] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [result, setResult] = useState<SimulationResult | null>(null);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await beforeRun();
      const { data } = await call(
        api.POST('/api/v1/workflows/{id}/simulate', {
          params: { path: { id: workflowId } },
          body: { variables: objectOf(pairs) as Record<string, string>, inputs: parseInputs(inputs) },
        }),
      );
      setResult(data as SimulationResult);
      onResult(data as SimulationResult);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(400, String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel-body" aria-label="Simulate">
      <p className="muted">
        Runs the draft on the text channel: no phone, webhooks and models stubbed. Telephony steps take their
        simulated outcome.
      </p>
      <KeyValueEditor name="variables" legend="Variables" pairs={pairs} onChange={setPairs} />
      <div className="field">
        <label htmlFor="sim-inputs">Caller inputs, one per line</label>
        <textarea
          id="sim-inputs"
          rows={3}
          value={inputs}
          onChange={(e) => setInputs(e.target.value)}
          aria-describedby="sim-inputs-hint"
        />
        <div className="field-hint" id="sim-inputs-hint">
          Text is said by the caller; <code>dtmf:1234#</code> presses keys.
        </div>
      </div>
      <div className="form-actions">
        <button type="button" className="btn btn-primary" onClick={() => void run()} disabled={busy}>
          {busy ? 'Running…' : 'Run simulation'}
        </button>
        {result && (
          <button type="button" className="btn" onClick={() => (setResult(null), onResult(null))}>
            Clear
          </button>
        )}
      </div>
      {error && (
        <div className="banner banner-error" role="alert">
          {error.status === 422
            ? `${error.message} ${Object.values(error.fieldErrors).flat().join(' ')}`
            : explain(error)}
        </div>
      )}
      {result && <SimulationOutcome result={result} />}
    </section>
  );
}

/** How the run ended and by which steps, then the conversation and the variables it left. */
function SimulationOutcome({ result }: { result: SimulationResult }) {
  return (
    <div className="sim-result" aria-live="polite">
      <p>
        Finished <strong>{result.status}</strong> after {result.path.length} step
        {result.path.length === 1 ? '' : 's'}: <span className="mono">{result.path.join(' → ')}</span>
      </p>
      {result.error !== undefined && (
        <div className="banner banner-warn">{String(JSON.stringify(result.error))}</div>
      )}
      <ol className="transcript" aria-label="Messages">
        {result.messages.map((m, i) => (
          <li key={i} className={`turn turn-${m.role}`}>
            <span className="turn-meta">
              {m.role === 'assistant' ? (m.agent_name ?? 'Workflow') : 'Caller'}
            </span>
            <TurnContent message={m} />
          </li>
        ))}
      </ol>
      {Object.keys(result.variables).length > 0 && (
        <details className="sim-vars">
          <summary>Variables at the end ({Object.keys(result.variables).length})</summary>
          <dl>
            {Object.entries(result.variables).map(([k, v]) => (
              <div key={k}>
                <dt className="mono">{k}</dt>
                <dd className="mono">{JSON.stringify(v)}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}
