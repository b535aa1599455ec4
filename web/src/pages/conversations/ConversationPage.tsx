// One conversation: the whole transcript with per-turn latency.
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { formatTime } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { Transcript } from '../../components/Transcript';

export function ConversationPage() {
  const { id = '' } = useParams();
  const conversation = useLoad(
    async () => (await call(api.GET('/api/v1/conversations/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  if (conversation.error && !conversation.data)
    return <ErrorBanner error={conversation.error} onRetry={conversation.reload} />;
  if (!conversation.data) return <Loading />;
  const c = conversation.data;
  const latencies = c.messages.map((m) => m.latency_ms).filter((l): l is number => l !== null);
  return (
    <>
      <PageHeader
        title="Conversation"
        crumb={<Link to="/conversations">Conversations</Link>}
        description={
          <>
            {formatTime(c.created_at)} · {c.message_count} messages ·{' '}
            <Link to={`/sessions/${c.session_id}`}>session</Link>
            {latencies.length > 0 && (
              <> · median reply {latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]} ms</>
            )}
          </>
        }
      />
      <Section title="Transcript" id="transcript">
        <Transcript messages={c.messages} />
      </Section>
    </>
  );
}
