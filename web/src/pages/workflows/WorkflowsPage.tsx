// Workflows: the list, with a project filter and "New workflow", which opens the editor
// (/workflows/:id). The editor itself is a separate, lazily loaded page.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Page, Workflow } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { TextField, SelectField } from '../../components/fields';
import { Form } from '../../components/Form';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';

export function WorkflowsPage() {
  const projects = useProjects();
  const [projectId, setProjectId] = useState('');
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState({ name: '', project_id: '' });
  const navigate = useNavigate();
  const list = usePagedList<Workflow>(
    async (query) => (await call(api.GET('/api/v1/workflows', { params: { query } }))) as Page<Workflow>,
    { project_id: projectId },
  );

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/workflows', {
        body: { name: draft.name, project_id: draft.project_id || projects.projects[0]?.id || '' },
      }),
    );
    navigate(`/workflows/${data.id}`);
  };

  return (
    <>
      <PageHeader
        title="Workflows"
        description="Conversations as versioned graphs: edit the draft, publish, and numbers and sessions run the latest published version."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New workflow
          </button>
        }
      />
      {creating && (
        <div className="card">
          <Form
            label="New workflow"
            submitLabel="Create and open"
            onSubmit={create}
            onCancel={() => setCreating(false)}
          >
            <div className="grid-2">
              <TextField
                name="name"
                label="Name"
                value={draft.name}
                onChange={(name) => setDraft({ ...draft, name })}
                autoFocus
              />
              <SelectField
                name="project_id"
                label="Project"
                value={draft.project_id || projects.projects[0]?.id || ''}
                onChange={(project_id) => setDraft({ ...draft, project_id })}
                options={projects.options}
              />
            </div>
          </Form>
        </div>
      )}
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
                <th scope="col">Published</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((w) => (
                <tr key={w.id}>
                  <td>
                    <Link to={`/workflows/${w.id}`}>{w.name}</Link>
                  </td>
                  <td>{projects.nameOf(w.project_id)}</td>
                  <td>
                    {w.published_version ? (
                      <Badge value={`v${w.published_version}`} tone="good" />
                    ) : (
                      <Badge value="draft" />
                    )}
                  </td>
                  <td>{formatTime(w.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && (
            <p className="empty">No workflows yet. Create one to start building.</p>
          )}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="workflows" />
        </div>
      )}
    </>
  );
}
