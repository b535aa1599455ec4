// Conversations: transcripts, one per session, filtered by project, session and dates.
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import { useProjects } from '../../api/projects';
import type { Conversation, Page } from '../../api/types';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';

type Summary = Omit<Conversation, 'messages'>;
const FILTERS = ['project_id', 'session_id', 'from_date', 'to_date'] as const;

export function ConversationsPage() {
  const projects = useProjects();
  const list = useResourceList<Summary, (typeof FILTERS)[number]>(
    FILTERS,
    async (query) => (await call(api.GET('/api/v1/conversations', { params: { query } }))) as Page<Summary>,
  );
  return (
    <>
      <PageHeader
        title="Conversations"
        description="Transcripts of every session, written live as people and agents speak."
      />
      <ResourceList
        list={list}
        noun="conversations"
        empty="No conversations yet. A transcript is written for every session."
        filters={[
          projects.filter,
          { key: 'session_id', label: 'Session id' },
          { key: 'from_date', label: 'From', type: 'date' },
          { key: 'to_date', label: 'To', type: 'date' },
        ]}
        columns={[
          {
            header: 'Started',
            cell: (c) => <Link to={`/conversations/${c.id}`}>{formatTime(c.created_at)}</Link>,
          },
          { header: 'Project', cell: (c) => projects.nameOf(c.project_id) },
          {
            header: 'Session',
            cell: (c) => (
              <Link to={`/sessions/${c.session_id}`} className="mono">
                {c.session_id.slice(0, 8)}
              </Link>
            ),
          },
          { header: 'Messages', cell: (c) => c.message_count, num: true },
          { header: 'Last message', cell: (c) => formatTime(c.updated_at) },
        ]}
      />
    </>
  );
}
