// One session: its transcript, live while the session runs (re-read every 2 s: the conversation
// is written as it happens), and "End session" to force-end it.
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { usePolling } from '../../api/polling';
import { useProjects } from '../../api/projects';
import { useWorkflowName } from '../../api/workflow-name';
import type { Session } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { Transcript } from '../../components/Transcript';

export function SessionPage() {
  const { id = '' } = useParams();
  const projects = useProjects();
  const session = useLoad(
    async () => (await call(api.GET('/api/v1/sessions/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  const conversation = useLoad(async () => {
    const list = (await call(api.GET('/api/v1/conversations', { params: { query: { session_id: id } } })))
      .data;
    return list[0]
      ? (await call(api.GET('/api/v1/conversations/{id}', { params: { path: { id: list[0].id } } }))).data
      : null;
  }, [id]);
  const s = session.data;
  const workflowName = useWorkflowName(s?.workflow_id);
  const live = Boolean(s && s.status !== 'ended');
  usePolling(live, session.reload);
  usePolling(live, conversation.reload);

  if (session.error && !s) return <ErrorBanner error={session.error} onRetry={session.reload} />;
  if (!s) return <Loading />;
  return (
    <>
      <PageHeader
        title={`${s.channel[0]!.toUpperCase()}${s.channel.slice(1)} session`}
        crumb={<Link to="/sessions">Sessions</Link>}
        description={
          <>
            <Badge value={s.status} />{' '}
            {s.end_reason && <span className="muted">{s.end_reason.replace(/_/g, ' ')}</span>}
            {live && <span className="muted"> · live, updating every 2 s</span>}
          </>
        }
        actions={
          live && (
            <ConfirmButton
              label="End session"
              question="Force-end this session now?"
              confirmLabel="End it"
              onConfirm={async () => {
                await call(api.DELETE('/api/v1/sessions/{id}', { params: { path: { id } } }));
                session.reload();
              }}
            />
          )
        }
      />
      {session.error && <ErrorBanner error={session.error} onRetry={session.reload} />}
      <div className="split">
        <Section title="Transcript" id="transcript">
          {conversation.error && <ErrorBanner error={conversation.error} onRetry={conversation.reload} />}
          {conversation.data ? (
            <Transcript messages={conversation.data.messages} live={live} />
          ) : (
            <p className="muted">{live ? 'Waiting for the first words…' : 'No transcript.'}</p>
          )}
        </Section>
        <SessionDetails
          s={s}
          projectName={projects.nameOf(s.project_id)}
          workflowName={workflowName}
          conversation={conversation.data ?? null}
        />
      </div>
    </>
  );
}

/** The session's project, workflow version, call, conversation, times and metadata. */
function SessionDetails({
  s,
  projectName,
  workflowName,
  conversation,
}: {
  s: Session;
  projectName: string;
  workflowName: string | null;
  conversation: { id: string; message_count: number } | null;
}) {
  return (
    <Section title="Details" id="details">
      <dl className="props">
        <dt>Project</dt>
        <dd>{projectName}</dd>
        <dt>Workflow</dt>
        <dd>
          <Link to={`/workflows/${s.workflow_id}`}>
            {workflowName ? `${workflowName} · ` : ''}version {s.workflow_version}
          </Link>
        </dd>
        <dt>Call</dt>
        <dd>{s.call_id ? <Link to={`/calls/${s.call_id}`}>{s.call_id.slice(0, 8)}</Link> : '—'}</dd>
        <dt>Conversation</dt>
        <dd>
          {conversation ? (
            <Link to={`/conversations/${conversation.id}`}>{conversation.message_count} messages</Link>
          ) : (
            '—'
          )}
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(s.started_at)}</dd>
        <dt>Ended</dt>
        <dd>{formatTime(s.ended_at)}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(s.duration_seconds)}</dd>
        <dt>Metadata</dt>
        <dd>{Object.keys(s.metadata).length ? <code>{JSON.stringify(s.metadata)}</code> : '—'}</dd>
      </dl>
    </Section>
  );
}
