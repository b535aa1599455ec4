// "Which rule would answer": runs the saved rules of a number against a caller and a moment
// (POST /phone-numbers/{id}/dispatch-test) and shows each rule's verdict, the winner first.
import { useState } from 'react';
import { api, call } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { DispatchTestResult } from '../../api/types';
import { Badge } from '../../components/Badge';
import { TextField } from '../../components/fields';
import { Form } from '../../components/Form';

export function DispatchTestPanel({
  numberId,
  workflowName,
  dirty,
  onResult,
}: {
  numberId: string;
  workflowName: (id: string) => string;
  dirty: boolean;
  onResult: (r: DispatchTestResult) => void;
}) {
  const [caller, setCaller] = useState('');
  const [at, setAt] = useState('');
  const [result, setResult] = useState<DispatchTestResult | null>(null);

  const run = async () => {
    const when = at.trim() ? new Date(at.trim()) : null;
    if (when && Number.isNaN(when.getTime())) {
      throw new ApiError(422, 'at: not a date and time', {
        at: ['Write a date and time, e.g. 2026-11-30 22:15.'],
      });
    }
    const { data } = await call(
      api.POST('/api/v1/phone-numbers/{id}/dispatch-test', {
        params: { path: { id: numberId } },
        body: { caller: caller.trim(), ...(when ? { at: when.toISOString() } : {}) },
      }),
    );
    setResult(data);
    onResult(data);
  };

  return (
    <div>
      <h2>Which rule would answer?</h2>
      <p className="muted">Tries the saved rules with a caller and a moment, without a call.</p>
      {dirty && (
        <div className="banner banner-warn" role="status">
          You have unsaved rule changes: the test uses the saved rules.
        </div>
      )}
      <Form label="Dispatch test" submitLabel="Test" busyLabel="Testing…" onSubmit={run}>
        <TextField
          name="caller"
          label="Caller"
          type="tel"
          value={caller}
          onChange={setCaller}
          placeholder="+4930123456 or anonymous"
        />
        <TextField
          name="at"
          label="At (your local time; empty: now)"
          type="text"
          value={at}
          onChange={setAt}
          placeholder="2026-11-30 22:15"
        />
      </Form>
      {result && <DispatchVerdict result={result} workflowName={workflowName} />}
    </div>
  );
}

/** The winning rule (or the refusal), then every rule's verdict with why it was skipped. */
function DispatchVerdict({
  result,
  workflowName,
}: {
  result: DispatchTestResult;
  workflowName: (id: string) => string;
}) {
  return (
    <div aria-live="polite" className="dispatch-result">
      <h3>
        {result.winner ? (
          <>
            Rule {result.winner.index + 1} answers: {workflowName(result.winner.workflow_id)}
          </>
        ) : (
          'No rule matches: the call would be refused (SIP 480).'
        )}
      </h3>
      {result.rules.map((r) => (
        <div className="rule-result" key={r.index}>
          <Badge value={r.matched ? 'matches' : 'skipped'} tone={r.matched ? 'good' : 'neutral'} />
          <span>
            Rule {r.index + 1} (priority {r.priority}) → {workflowName(r.workflow_id)}
            {r.reason && <span className="muted"> — {r.reason}</span>}
          </span>
        </div>
      ))}
    </div>
  );
}
