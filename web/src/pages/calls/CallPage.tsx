// One call: what happened (status timeline, hang-up reason), what was said (the transcript with
// per-turn latency), what was told (the webhook events it caused) and, when the call has one,
// its recording. Re-read every 2 s until the call has ended.
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad, type Loaded } from '../../api/hooks';
import { usePolling } from '../../api/polling';
import { useProjects } from '../../api/projects';
import { useWorkflowName } from '../../api/workflow-name';
import type { Call, WebhookDelivery } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { Transcript } from '../../components/Transcript';
import { RecordingPlayer } from './RecordingPlayer';

const ENDED = ['completed', 'no_answer', 'busy', 'failed', 'cancelled'];

function timeline(c: Call): Array<{ label: string; at: string | null; note?: string }> {
  const steps: Array<{ label: string; at: string | null; note?: string }> = [
    { label: c.direction === 'inbound' ? 'Call arrived' : 'Queued', at: c.created_at },
  ];
  if (c.started_at)
    steps.push({ label: c.direction === 'inbound' ? 'Answered' : 'Connected', at: c.started_at });
  if (ENDED.includes(c.status))
    steps.push({
      label: `Ended: ${c.status.replace('_', ' ')}`,
      at: c.ended_at,
      note: c.hangup_reason?.replace(/_/g, ' '),
    });
  else steps.push({ label: `Now: ${c.status.replace('_', ' ')}`, at: null });
  return steps;
}

/** Webhook deliveries whose event names this call (the call.* events and its session's). */
async function eventsOf(c: Call): Promise<WebhookDelivery[]> {
  const endpoints = (
    await call(
      api.GET('/api/v1/webhook-endpoints', {
        params: { query: { project_id: c.project_id, per_page: 100 } },
      }),
    )
  ).data;
  const found: WebhookDelivery[] = [];
  for (const e of endpoints) {
    const deliveries = (
      await call(
        api.GET('/api/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: e.id }, query: { per_page: 100 } },
        }),
      )
    ).data;
    for (const d of deliveries) {
      const body = d.attempts[0]?.request.body ?? '';
      if (body.includes(c.id) || (c.session_id && body.includes(c.session_id))) found.push(d);
    }
  }
  return found;
}

/** The conversation of the call's session (its transcript), read again as the call moves on. */
function useConversation(sessionId: string | null, status: string | undefined) {
  return useLoad(async () => {
    if (!sessionId) return null;
    const list = (
      await call(api.GET('/api/v1/conversations', { params: { query: { session_id: sessionId } } }))
    ).data;
    return list[0]
      ? (await call(api.GET('/api/v1/conversations/{id}', { params: { path: { id: list[0].id } } }))).data
      : null;
  }, [sessionId, status]);
}

export function CallPage() {
  const { id = '' } = useParams();
  const projects = useProjects();
  const record = useLoad(
    async () => (await call(api.GET('/api/v1/calls/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  const c = record.data;
  const workflowName = useWorkflowName(c?.workflow_id);
  const live = Boolean(c && !ENDED.includes(c.status));
  usePolling(live, record.reload);
  const sessionId = c?.session_id ?? null;
  const conversation = useConversation(sessionId, c?.status);
  const events = useLoad(async () => (c ? eventsOf(c) : []), [c?.id, c?.status]);

  if (record.error && !c) return <ErrorBanner error={record.error} onRetry={record.reload} />;
  if (!c) return <Loading />;
  return (
    <>
      <PageHeader
        title={`${c.direction === 'inbound' ? 'Inbound' : 'Outbound'} call ${c.from} → ${c.to}`}
        crumb={<Link to="/calls">Calls</Link>}
        description={
          <>
            <Badge value={c.status} />{' '}
            {c.hangup_reason && (
              <span className="muted">hang-up reason: {c.hangup_reason.replace(/_/g, ' ')}</span>
            )}
          </>
        }
        actions={
          (c.status === 'queued' || c.status === 'ringing') && c.direction === 'outbound' ? (
            <ConfirmButton
              label="Cancel call"
              question="Stop this call ringing?"
              onConfirm={async () => {
                await call(api.DELETE('/api/v1/calls/{id}', { params: { path: { id } } }));
                record.reload();
              }}
            />
          ) : undefined
        }
      />
      {record.error && <ErrorBanner error={record.error} onRetry={record.reload} />}
      <div className="split">
        <div>
          <CallTranscript conversation={conversation} live={live} ran={sessionId !== null} />
          {(c.recording_url || c.recording_error) && (
            <Section title="Recording" id="recording">
              {c.recording_url ? (
                <RecordingPlayer callId={c.id} />
              ) : (
                <p className="muted">Not recorded: {c.recording_error}</p>
              )}
            </Section>
          )}
          <CallEvents events={events} />
        </div>
        <div>
          <CallTimeline c={c} />
          <CallDetails c={c} projectName={projects.nameOf(c.project_id)} workflowName={workflowName} />
        </div>
      </div>
    </>
  );
}

/** The webhook deliveries whose event names this call, and how each one went. */
function CallEvents({ events }: { events: Loaded<WebhookDelivery[]> }) {
  return (
    <Section title="Webhook events" id="events">
      {events.error && <ErrorBanner error={events.error} onRetry={events.reload} />}
      {events.data && events.data.length === 0 && (
        <p className="muted">No webhook endpoint of this project received an event about this call.</p>
      )}
      {events.data && events.data.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Delivery</th>
              <th scope="col">Attempts</th>
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
                </td>
                <td>{d.attempt_count}</td>
                <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** When the call arrived or was queued, was answered and ended (or what it is doing now). */
function CallTimeline({ c }: { c: Call }) {
  return (
    <Section title="Timeline" id="timeline">
      <ol className="timeline">
        {timeline(c).map((s) => (
          <li key={s.label}>
            <strong>{s.label}</strong>
            <div className="muted">{s.at ? formatTime(s.at) : 'in progress'}</div>
            {s.note && <div className="muted">{s.note}</div>}
          </li>
        ))}
      </ol>
    </Section>
  );
}

/** The call's project, workflow, session, machine detection verdict, duration, metadata and id. */
function CallDetails({
  c,
  projectName,
  workflowName,
}: {
  c: Call;
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

/** What was said on the call, with per-turn latency; live while the call is. */
function CallTranscript({
  conversation,
  live,
  ran,
}: {
  conversation: ReturnType<typeof useConversation>;
  live: boolean;
  /** A workflow ran on the call (it has a session). */
  ran: boolean;
}) {
  return (
    <Section title="Transcript" id="transcript">
      {conversation.error && <ErrorBanner error={conversation.error} onRetry={conversation.reload} />}
      {conversation.data ? (
        <Transcript messages={conversation.data.messages} live={live} />
      ) : (
        <p className="muted">
          {ran ? 'Loading…' : 'No workflow ran on this call, so there is no transcript.'}
        </p>
      )}
    </Section>
  );
}
