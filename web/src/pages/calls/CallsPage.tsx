// Calls: every inbound and outbound call, filtered as the API filters (project, direction, status,
// from, to), and "Place a call" for an outbound call through a registered number.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Call, Page } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField, TextField } from '../../components/fields';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';
import { PlaceCallForm } from './PlaceCallForm';

const STATUSES = [
  'queued',
  'ringing',
  'in_progress',
  'completed',
  'no_answer',
  'busy',
  'failed',
  'cancelled',
];

export function CallsPage() {
  const projects = useProjects();
  const [filters, setFilters] = useState({ project_id: '', direction: '', status: '', from: '', to: '' });
  const [placing, setPlacing] = useState(false);
  const list = usePagedList<Call>(
    async (query) => (await call(api.GET('/api/v1/calls', { params: { query } }))) as Page<Call>,
    filters,
  );
  const set = (key: keyof typeof filters) => (value: string) => setFilters({ ...filters, [key]: value });

  return (
    <>
      <PageHeader
        title="Calls"
        description="Phone calls in and out, with their status, hang-up reason and transcript."
        actions={
          !placing && (
            <button type="button" className="btn btn-primary" onClick={() => setPlacing(true)}>
              Place a call
            </button>
          )
        }
      />
      {placing && <PlaceCallForm onCancel={() => setPlacing(false)} />}
      <div className="toolbar" role="search" aria-label="Filter calls">
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
          name="direction"
          label="Direction"
          value={filters.direction}
          onChange={set('direction')}
          options={[
            { value: 'inbound', label: 'Inbound' },
            { value: 'outbound', label: 'Outbound' },
          ]}
          emptyLabel="Both"
          className="field-inline"
        />
        <SelectField
          name="status"
          label="Status"
          value={filters.status}
          onChange={set('status')}
          options={STATUSES.map((s) => ({ value: s, label: s.replace('_', ' ') }))}
          emptyLabel="Any status"
          className="field-inline"
        />
        <TextField
          name="from"
          label="From"
          type="tel"
          value={filters.from}
          onChange={set('from')}
          placeholder="+4930123456"
          className="field-inline"
        />
        <TextField
          name="to"
          label="To"
          type="tel"
          value={filters.to}
          onChange={set('to')}
          placeholder="+14155550100"
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
                <th scope="col">Call</th>
                <th scope="col">Direction</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Hang-up reason</th>
                <th scope="col" className="num">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link to={`/calls/${c.id}`}>{formatTime(c.created_at)}</Link>
                  </td>
                  <td>
                    <Badge value={c.direction} />
                  </td>
                  <td className="mono">{c.from}</td>
                  <td className="mono">{c.to}</td>
                  <td>
                    <Badge value={c.status} />
                  </td>
                  <td>{c.hangup_reason?.replace(/_/g, ' ') ?? <span className="muted">—</span>}</td>
                  <td className="num">{formatDuration(c.duration_seconds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p className="empty">No calls match.</p>}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="calls" />
        </div>
      )}
    </>
  );
}
