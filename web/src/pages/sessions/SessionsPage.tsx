// Sessions: every run of a workflow (web, phone, test), filtered by project, channel and status.
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import { useProjects } from '../../api/projects';
import { useWorkflowNames, workflowLabel } from '../../api/workflow-name';
import type { Page, Session } from '../../api/types';
import { Badge } from '../../components/Badge';
import { formatDuration, formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';

const FILTERS = ['project_id', 'channel', 'status'] as const;
const choices = (values: string[]) => values.map((v) => ({ value: v, label: v }));

export function SessionsPage() {
  const projects = useProjects();
  const workflows = useWorkflowNames();
  const list = useResourceList<Session, (typeof FILTERS)[number]>(
    FILTERS,
    async (query) => (await call(api.GET('/api/v1/sessions', { params: { query } }))) as Page<Session>,
  );
  return (
    <>
      <PageHeader
        title="Sessions"
        description="Each live run of a workflow: web sessions, phone calls' sessions and test runs."
      />
      <ResourceList
        list={list}
        noun="sessions"
        empty="No sessions yet. Each call, browser conversation and test run starts one."
        filters={[
          projects.filter,
          {
            key: 'channel',
            label: 'Channel',
            options: choices(['web', 'phone', 'test']),
            anyLabel: 'Any channel',
          },
          {
            key: 'status',
            label: 'Status',
            options: choices(['pending', 'active', 'ended']),
            anyLabel: 'Any status',
          },
        ]}
        columns={[
          {
            header: 'Started',
            cell: (s) => <Link to={`/sessions/${s.id}`}>{formatTime(s.started_at ?? s.created_at)}</Link>,
          },
          { header: 'Project', cell: (s) => projects.nameOf(s.project_id) },
          { header: 'Channel', cell: (s) => s.channel },
          { header: 'Status', cell: (s) => <Badge value={s.status} /> },
          {
            header: 'Workflow',
            cell: (s) => {
              const label = workflowLabel(workflows.nameOf(s.workflow_id), s.workflow_version);
              return s.workflow_id && label ? (
                <Link to={`/workflows/${s.workflow_id}`}>{label}</Link>
              ) : (
                <span className="muted">—</span>
              );
            },
          },
          {
            header: 'End reason',
            cell: (s) => s.end_reason?.replace(/_/g, ' ') ?? <span className="muted">—</span>,
          },
          { header: 'Duration', cell: (s) => formatDuration(s.duration_seconds), num: true },
        ]}
      />
    </>
  );
}
