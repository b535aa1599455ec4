// Agents: the LLM personas workflows talk through, by project.
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import { useProjects } from '../../api/projects';
import type { Agent, Page } from '../../api/types';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';

export function AgentsPage() {
  const projects = useProjects();
  const list = useResourceList<Agent, 'project_id'>(
    ['project_id'],
    async (query) => (await call(api.GET('/api/v1/agents', { params: { query } }))) as Page<Agent>,
  );
  return (
    <>
      <PageHeader
        title="Agents"
        description="LLM personas: a prompt, a model, a voice. Workflows use them in agent nodes."
        actions={
          <Link className="btn btn-primary" to="/agents/new">
            New agent
          </Link>
        }
      />
      <ResourceList
        list={list}
        noun="agents"
        empty="No agents yet."
        filters={[projects.filter]}
        columns={[
          { header: 'Name', cell: (a) => <Link to={`/agents/${a.id}`}>{a.name}</Link> },
          { header: 'Project', cell: (a) => projects.nameOf(a.project_id) },
          { header: 'Model', cell: (a) => `${a.llm_provider} · ${a.llm_model}`, className: 'mono' },
          { header: 'Voice', cell: (a) => `${a.tts_voice ?? 'default'} · ${a.stt_language}` },
          { header: 'Updated', cell: (a) => formatTime(a.updated_at) },
        ]}
      />
    </>
  );
}
