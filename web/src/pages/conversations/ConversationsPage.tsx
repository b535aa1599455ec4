// Conversations: transcripts, one per session, filtered by project, session and dates.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Conversation, Page } from '../../api/types';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField, TextField } from '../../components/fields';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';

type Summary = Omit<Conversation, 'messages'>;

export function ConversationsPage() {
  const projects = useProjects();
  const [filters, setFilters] = useState({ project_id: '', session_id: '', from_date: '', to_date: '' });
  const list = usePagedList<Summary>(
    async (query) => (await call(api.GET('/api/v1/conversations', { params: { query } }))) as Page<Summary>,
    filters,
  );
  const set = (key: keyof typeof filters) => (value: string) => setFilters({ ...filters, [key]: value });
  return (
    <>
      <PageHeader
        title="Conversations"
        description="Transcripts of every session, written live as people and agents speak."
      />
      <div className="toolbar" role="search" aria-label="Filter conversations">
        <SelectField
          name="project"
          label="Project"
          value={filters.project_id}
          onChange={set('project_id')}
          options={projects.options}
          emptyLabel="All projects"
          className="field-inline"
        />
        <TextField
          name="session_id"
          label="Session id"
          value={filters.session_id}
          onChange={set('session_id')}
          className="field-inline"
        />
        <TextField
          name="from_date"
          label="From"
          type="date"
          value={filters.from_date}
          onChange={set('from_date')}
          className="field-inline"
        />
        <TextField
          name="to_date"
          label="To"
          type="date"
          value={filters.to_date}
          onChange={set('to_date')}
          className="field-inline"
        />
      </div>
      {list.error && <ErrorBanner error={list.error} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <div className="card card-flush">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Project</th>
                <th scope="col">Session</th>
                <th scope="col" className="num">
                  Messages
                </th>
                <th scope="col">Last message</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link to={`/conversations/${c.id}`}>{formatTime(c.created_at)}</Link>
                  </td>
                  <td>{projects.nameOf(c.project_id)}</td>
                  <td>
                    <Link to={`/sessions/${c.session_id}`} className="mono">
                      {c.session_id.slice(0, 8)}
                    </Link>
                  </td>
                  <td className="num">{c.message_count}</td>
                  <td>{formatTime(c.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p className="empty">No conversations match.</p>}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="conversations" />
        </div>
      )}
    </>
  );
}
