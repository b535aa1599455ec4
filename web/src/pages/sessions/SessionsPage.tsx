// Sessions: every run of a workflow (web, phone, test), filtered by project, channel and status.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Page, Session } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField } from '../../components/fields';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';

export function SessionsPage() {
  const projects = useProjects();
  const [filters, setFilters] = useState({ project_id: '', channel: '', status: '' });
  const list = usePagedList<Session>(
    async (query) => (await call(api.GET('/api/v1/sessions', { params: { query } }))) as Page<Session>,
    filters,
  );
  const set = (key: keyof typeof filters) => (value: string) => setFilters({ ...filters, [key]: value });
  return (
    <>
      <PageHeader
        title="Sessions"
        description="Each live run of a workflow: web sessions, phone calls' sessions and test runs."
      />
      <div className="toolbar" role="search" aria-label="Filter sessions">
        <SelectField
          name="project"
          label="Project"
          value={filters.project_id}
          onChange={set('project_id')}
          options={projects.options}
          emptyLabel="All projects"
          className="field-inline"
        />
        <SelectField
          name="channel"
          label="Channel"
          value={filters.channel}
          onChange={set('channel')}
          options={['web', 'phone', 'test'].map((v) => ({ value: v, label: v }))}
          emptyLabel="Any channel"
          className="field-inline"
        />
        <SelectField
          name="status"
          label="Status"
          value={filters.status}
          onChange={set('status')}
          options={['pending', 'active', 'ended'].map((v) => ({ value: v, label: v }))}
          emptyLabel="Any status"
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
                <th scope="col">Channel</th>
                <th scope="col">Status</th>
                <th scope="col">End reason</th>
                <th scope="col" className="num">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`/sessions/${s.id}`}>{formatTime(s.started_at ?? s.created_at)}</Link>
                  </td>
                  <td>{projects.nameOf(s.project_id)}</td>
                  <td>{s.channel}</td>
                  <td>
                    <Badge value={s.status} />
                  </td>
                  <td>{s.end_reason?.replace(/_/g, ' ') ?? <span className="muted">—</span>}</td>
                  <td className="num">{formatDuration(s.duration_seconds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p className="empty">No sessions match.</p>}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="sessions" />
        </div>
      )}
    </>
  );
}
