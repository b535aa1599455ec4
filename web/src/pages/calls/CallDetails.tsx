// The call page's side column: the call's details (project, workflow and version, the call it was
// dialled from, its session, duration, metadata, id) and the webhook events that named it.
import { Link } from 'react-router';
import type { Loaded } from '../../api/hooks';
import type { Call, WebhookDelivery } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ErrorBanner } from '../../components/ErrorBanner';
import { formatDuration } from '../../components/format';
import { Section } from '../../components/PageHeader';

export function CallDetails({
  call: c,
  projectName,
  workflowName,
}: {
  call: Call;
  projectName: string;
  workflowName: string | null;
}) {
  return (
    <Section title="Details" id="details">
      <dl className="props">
        <dt>Project</dt>
        <dd>{projectName}</dd>
        <dt>Workflow</dt>
        <dd>
          {c.workflow_id ? (
            <Link to={`/workflows/${c.workflow_id}`}>
              {[workflowName, c.workflow_version ? `version ${c.workflow_version}` : null]
                .filter(Boolean)
                .join(' · ') || 'open'}
            </Link>
          ) : (
            '—'
          )}
        </dd>
        {c.parent_call_id && (
          <>
            <dt>Dialled from</dt>
            <dd>
              <Link to={`/calls/${c.parent_call_id}`}>call {c.parent_call_id.slice(0, 8)}</Link>
            </dd>
          </>
        )}
        <dt>Session</dt>
        <dd>
          {c.session_id ? <Link to={`/sessions/${c.session_id}`}>{c.session_id.slice(0, 8)}</Link> : '—'}
        </dd>
        {c.answered_by && (
          <>
            <dt>Answered by</dt>
            <dd>{c.answered_by}</dd>
          </>
        )}
        <dt>Duration</dt>
        <dd>{formatDuration(c.duration_seconds)}</dd>
        <dt>Metadata</dt>
        <dd>{Object.keys(c.metadata).length ? <code>{JSON.stringify(c.metadata)}</code> : '—'}</dd>
        <dt>Call id</dt>
        <dd className="mono">{c.id}</dd>
      </dl>
    </Section>
  );
}

/**
 * The deliveries about the call: event, how the delivery went (to its endpoint) with its attempts
 * under it, last answer. Three narrow columns, so the table fits the side column and a phone.
 */
export function CallEvents({ events }: { events: Loaded<WebhookDelivery[]> }) {
  return (
    <Section title="Webhook events" id="events">
      {events.error && <ErrorBanner error={events.error} onRetry={events.reload} />}
      {events.data && events.data.length === 0 && (
        <p className="muted">No webhook endpoint of this project received an event about this call.</p>
      )}
      {events.data && events.data.length > 0 && (
        <table className="table table-compact call-events">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Delivery</th>
              <th scope="col">Last answer</th>
            </tr>
          </thead>
          <tbody>
            {events.data.map((d) => (
              <tr key={d.id}>
                <td className="mono">{d.event.type}</td>
                <td>
                  <Link to={`/webhooks/${d.endpoint_id}`}>
                    <Badge value={d.status} />
                  </Link>
                  <span className="attempts">
                    {d.attempt_count === 1 ? '1 attempt' : `${d.attempt_count} attempts`}
                  </span>
                </td>
                <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
