// Calls: every inbound and outbound call, filtered as the API filters (project, direction, status,
// from, to), and "Place a call" for an outbound call through a registered number.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import { useProjects } from '../../api/projects';
import { useWorkflowNames, workflowLabel } from '../../api/workflow-name';
import type { Call, Page } from '../../api/types';
import { Badge } from '../../components/Badge';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';
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

const FILTERS = ['project_id', 'direction', 'status', 'from', 'to'] as const;

export function CallsPage() {
  const projects = useProjects();
  const workflows = useWorkflowNames();
  const [placing, setPlacing] = useState(false);
  const list = useResourceList<Call, (typeof FILTERS)[number]>(
    FILTERS,
    async (query) => (await call(api.GET('/api/v1/calls', { params: { query } }))) as Page<Call>,
  );

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
      <ResourceList
        list={list}
        noun="calls"
        empty="No calls yet. Calls to your numbers, and calls you place, show up here."
        filters={[
          projects.filter,
          {
            key: 'direction',
            label: 'Direction',
            options: [
              { value: 'inbound', label: 'Inbound' },
              { value: 'outbound', label: 'Outbound' },
            ],
            anyLabel: 'Both',
          },
          {
            key: 'status',
            label: 'Status',
            options: STATUSES.map((s) => ({ value: s, label: s.replace('_', ' ') })),
            anyLabel: 'Any status',
          },
          { key: 'from', label: 'From', type: 'tel', placeholder: '+4930123456' },
          { key: 'to', label: 'To', type: 'tel', placeholder: '+14155550100' },
        ]}
        columns={[
          { header: 'Call', cell: (c) => <Link to={`/calls/${c.id}`}>{formatTime(c.created_at)}</Link> },
          { header: 'Direction', cell: (c) => <Badge value={c.direction} /> },
          { header: 'From', cell: (c) => c.from, className: 'mono' },
          { header: 'To', cell: (c) => c.to, className: 'mono' },
          { header: 'Status', cell: (c) => <Badge value={c.status} /> },
          {
            header: 'Workflow',
            cell: (c) => {
              const label = workflowLabel(workflows.nameOf(c.workflow_id), c.workflow_version);
              return c.workflow_id && label ? (
                <Link to={`/workflows/${c.workflow_id}`}>{label}</Link>
              ) : (
                <span className="muted">—</span>
              );
            },
          },
          {
            header: 'Hang-up reason',
            cell: (c) => c.hangup_reason?.replace(/_/g, ' ') ?? <span className="muted">—</span>,
          },
          { header: 'Duration', cell: (c) => formatDuration(c.duration_seconds), num: true },
        ]}
      />
    </>
  );
}
