// An endpoint's delivery log: each delivery with its status and, opened, every attempt's request
// (headers, body) and response (status, headers, body) or error. A dead or failed delivery can be
// sent again.
import { useState } from 'react';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import type { Page, WebhookDelivery } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField } from '../../components/fields';
import { formatTime } from '../../components/format';
import { Pager } from '../../components/Pager';

function headersText(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

function pretty(body: string | null): string {
  if (!body) return '(empty)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Delivery({ d, onRedelivered }: { d: WebhookDelivery; onRedelivered: () => void }) {
  return (
    <details className="attempt delivery" data-status={d.status}>
      <summary>
        <Badge value={d.status} /> <span className="mono">{d.event.type}</span> · {d.attempt_count} attempt
        {d.attempt_count === 1 ? '' : 's'} · last answer {d.last_status_code ?? d.last_error ?? '—'} ·{' '}
        {formatTime(d.created_at)}
      </summary>
      <div className="delivery-body">
        {(d.status === 'dead' || d.status === 'failed') && (
          <p>
            <ConfirmButton
              className="btn btn-small"
              label="Redeliver"
              question="Send this event again (same id and body)?"
              confirmLabel="Redeliver now"
              onConfirm={async () => {
                await call(
                  api.POST('/api/v1/webhook-deliveries/{id}/redeliver', { params: { path: { id: d.id } } }),
                );
                onRedelivered();
              }}
            />
          </p>
        )}
        {d.next_attempt_at && <p className="muted">Next attempt {formatTime(d.next_attempt_at)}.</p>}
        {d.attempts.map((a) => (
          <div key={a.id} className="attempt-block">
            <h3>
              Attempt {a.attempt_number} · {formatTime(a.started_at)} · {a.duration_ms} ms{' '}
              {a.response ? `· HTTP ${a.response.status}` : ''}{' '}
              {a.error && <span className="inline-error">{a.error}</span>}
            </h3>
            <div className="attempt-grid">
              <div>
                <div className="muted">Request</div>
                <pre className="code-block" tabIndex={0} aria-label={`Attempt ${a.attempt_number} request`}>
                  {headersText(a.request.headers) + '\n\n' + pretty(a.request.body)}
                </pre>
              </div>
              <div>
                <div className="muted">Response</div>
                <pre className="code-block" tabIndex={0} aria-label={`Attempt ${a.attempt_number} response`}>
                  {a.response
                    ? `HTTP ${a.response.status}\n${headersText(a.response.headers)}\n\n${pretty(a.response.body)}`
                    : (a.error ?? 'No response')}
                </pre>
              </div>
            </div>
          </div>
        ))}
      </div>
    </details>
  );
}

export function DeliveryLog({ endpointId }: { endpointId: string }) {
  const [status, setStatus] = useState('');
  const list = usePagedList<WebhookDelivery>(
    async (query) =>
      (await call(
        api.GET('/api/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id: endpointId }, query } }),
      )) as Page<WebhookDelivery>,
    { status },
  );
  return (
    <div>
      <div className="card-header">
        <h2>Delivery log</h2>
        <div className="toolbar">
          <SelectField
            name="delivery-status"
            label="Status"
            value={status}
            onChange={setStatus}
            options={['pending', 'succeeded', 'failed', 'dead'].map((s) => ({ value: s, label: s }))}
            emptyLabel="Any"
            className="field-inline"
          />
          <button type="button" className="btn btn-small" onClick={list.reload}>
            Refresh
          </button>
        </div>
      </div>
      {list.error && <ErrorBanner error={list.error} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading />}
      {list.data && list.data.data.length === 0 && <p className="muted">No deliveries yet.</p>}
      {list.data?.data.map((d) => (
        <Delivery key={d.id} d={d} onRedelivered={list.reload} />
      ))}
      {list.data && (
        <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="deliveries" />
      )}
    </div>
  );
}
