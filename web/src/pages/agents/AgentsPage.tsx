// Agents: the LLM personas workflows talk through, by project.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Agent, Page } from '../../api/types';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField } from '../../components/fields';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';

export function AgentsPage() {
  const projects = useProjects();
  const [projectId, setProjectId] = useState('');
  const list = usePagedList<Agent>(
    async (query) => (await call(api.GET('/api/v1/agents', { params: { query } }))) as Page<Agent>,
    { project_id: projectId },
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
      <div className="toolbar">
        <SelectField
          name="filter-project"
          label="Project"
          value={projectId}
          onChange={setProjectId}
          options={projects.options}
          emptyLabel="All projects"
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
                <th scope="col">Name</th>
                <th scope="col">Project</th>
                <th scope="col">Model</th>
                <th scope="col">Voice</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link to={`/agents/${a.id}`}>{a.name}</Link>
                  </td>
                  <td>{projects.nameOf(a.project_id)}</td>
                  <td className="mono">
                    {a.llm_provider} · {a.llm_model}
                  </td>
                  <td>
                    {a.tts_voice ?? 'default'} · {a.stt_language}
                  </td>
                  <td>{formatTime(a.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p className="empty">No agents yet.</p>}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="agents" />
        </div>
      )}
    </>
  );
}
