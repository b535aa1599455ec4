// One call: what happened (the timeline: its states, the workflow steps it went through with the
// keys pressed and the legs dialled, the webhook events it caused; the hang-up reason), what was
// said (the transcript with per-turn latency) and, when the call has one, its recording. Re-read
// every 2 s until the call has ended. On a phone the status and hang-up reason come first, then
// the timeline, then the transcript.
import { useCallback, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { usePolling } from '../../api/polling';
import { useProjects } from '../../api/projects';
import { useWorkflowName } from '../../api/workflow-name';
import type { Call, WebhookDelivery } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatDuration } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { Transcript } from '../../components/Transcript';
import { callTimeline, type TimelineNode } from './call-timeline';
import { CallTimeline } from './CallTimeline';
import { RecordingPlayer } from './RecordingPlayer';

const ENDED = ['completed', 'no_answer', 'busy', 'failed', 'cancelled'];

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

/** The nodes of the workflow version that ran, for what each step said or asked. */
function useVersionNodes(workflowId: string | null, version: number | null): TimelineNode[] {
  const loaded = useLoad(async () => {
    if (!workflowId || !version) return [];
    const v = (
      await call(
        api.GET('/api/v1/workflows/{id}/versions/{version}', {
          params: { path: { id: workflowId, version } },
        }),
      )
    ).data;
    const graph = v.graph as { nodes?: TimelineNode[] } | undefined;
    return Array.isArray(graph?.nodes) ? graph.nodes : [];
  }, [workflowId, version]);
  // Without the graph (a deleted workflow, a key that may not read it) the steps still show.
  return loaded.data ?? [];
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
  const [tick, setTick] = useState(0);
  const reloadCall = record.reload;
  const poll = useCallback(() => {
    reloadCall();
    setTick((t) => t + 1);
  }, [reloadCall]);
  usePolling(live, poll);
  const sessionId = c?.session_id ?? null;
  const conversation = useLoad(async () => {
    if (!sessionId) return null;
    const list = (
      await call(api.GET('/api/v1/conversations', { params: { query: { session_id: sessionId } } }))
    ).data;
    return list[0]
      ? (await call(api.GET('/api/v1/conversations/{id}', { params: { path: { id: list[0].id } } }))).data
      : null;
  }, [sessionId, c?.status, tick]);
  const events = useLoad(async () => (c ? eventsOf(c) : []), [c?.id, c?.status]);
  const legs = useLoad(
    async () =>
      (await call(api.GET('/api/v1/calls', { params: { query: { parent_call_id: id, per_page: 100 } } })))
        .data,
    [id, c?.status, tick],
  );
  const nodes = useVersionNodes(c?.workflow_id ?? null, c?.workflow_version ?? null);

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
            {c.duration_seconds !== null && (
              <span className="muted nowrap"> · {formatDuration(c.duration_seconds)}</span>
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
          <Section title="Timeline" id="timeline">
            {(conversation.error ?? legs.error) && (
              <ErrorBanner
                error={(conversation.error ?? legs.error)!}
                onRetry={() => {
                  conversation.reload();
                  legs.reload();
                }}
              />
            )}
            <CallTimeline
              start={c.created_at}
              entries={callTimeline({
                call: c,
                steps: conversation.data?.steps,
                messages: conversation.data?.messages,
                legs: legs.data,
                deliveries: events.data,
                nodes,
              })}
            />
          </Section>
          <Section title="Transcript" id="transcript">
            {conversation.data ? (
              <Transcript messages={conversation.data.messages} live={live} />
            ) : (
              <p className="muted">
                {sessionId ? 'Loading…' : 'No workflow ran on this call, so there is no transcript.'}
              </p>
            )}
          </Section>
          {(c.recording_url || c.recording_error) && (
            <Section title="Recording" id="recording">
              {c.recording_url ? (
                <RecordingPlayer callId={c.id} />
              ) : (
                <p className="muted">Not recorded: {c.recording_error}</p>
              )}
            </Section>
          )}
        </div>
        <div>
          <Section title="Details" id="details">
            <dl className="props">
              <dt>Project</dt>
              <dd>{projects.nameOf(c.project_id)}</dd>
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
                {c.session_id ? (
                  <Link to={`/sessions/${c.session_id}`}>{c.session_id.slice(0, 8)}</Link>
                ) : (
                  '—'
                )}
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
        </div>
      </div>
    </>
  );
}
