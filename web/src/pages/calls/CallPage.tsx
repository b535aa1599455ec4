// One call: what happened (the timeline: its states, the workflow steps it went through with the
// keys pressed and the legs dialled, the webhook events it caused; the hang-up reason), what was
// said (the transcript with per-turn latency) and, when the call has one, its recording. Re-read
// every 2 s until the call has ended. On a phone the status and hang-up reason come first, then
// the timeline, then the transcript.
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useProjects } from '../../api/projects';
import { useWorkflowName } from '../../api/workflow-name';
import type { Call } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatDuration } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { Transcript } from '../../components/Transcript';
import { CallDetails, CallEvents } from './CallDetails';
import { callTimeline } from './call-timeline';
import { CallTimeline } from './CallTimeline';
import { RecordingPlayer } from './RecordingPlayer';
import { useCallActivity, useLiveCall } from './use-call-activity';

export function CallPage() {
  const { id = '' } = useParams();
  const projects = useProjects();
  const { record, live, tick } = useLiveCall(id);
  const c = record.data;
  const workflowName = useWorkflowName(c?.workflow_id);
  const activity = useCallActivity(id, c, tick);
  const { sessionId, conversation, events } = activity;

  if (record.error && !c) return <ErrorBanner error={record.error} onRetry={record.reload} />;
  if (!c) return <Loading />;
  return (
    <>
      <CallHeader call={c} onCancelled={record.reload} />
      {record.error && <ErrorBanner error={record.error} onRetry={record.reload} />}
      <div className="split">
        <div>
          <TimelineSection call={c} activity={activity} />
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
          <CallDetails call={c} projectName={projects.nameOf(c.project_id)} workflowName={workflowName} />
          <CallEvents events={events} />
        </div>
      </div>
    </>
  );
}

/** Who called whom, the status, hang-up reason and duration; an outbound call still ringing can be cancelled. */
function CallHeader({ call: c, onCancelled }: { call: Call; onCancelled: () => void }) {
  return (
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
              await call(api.DELETE('/api/v1/calls/{id}', { params: { path: { id: c.id } } }));
              onCancelled();
            }}
          />
        ) : undefined
      }
    />
  );
}

/** The call's states, steps, legs and webhook events in time order, with a retry while a read fails. */
function TimelineSection({
  call: c,
  activity: { conversation, legs, events, nodes },
}: {
  call: Call;
  activity: ReturnType<typeof useCallActivity>;
}) {
  return (
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
  );
}
