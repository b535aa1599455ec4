// Workflows: the list, with a project filter and "New workflow", which opens the editor
// (/workflows/:id). The editor itself is a separate, lazily loaded page.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import { useProjects } from '../../api/projects';
import type { Page, Workflow } from '../../api/types';
import { Badge } from '../../components/Badge';
import { fieldBinder, TextField } from '../../components/fields';
import { Form } from '../../components/Form';
import { formatTime } from '../../components/format';
import { ProjectField } from '../../components/ProjectField';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';

export function WorkflowsPage() {
  const projects = useProjects();
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState({ name: '', project_id: '' });
  const field = fieldBinder(draft, setDraft);
  const navigate = useNavigate();
  const list = useResourceList<Workflow, 'project_id'>(
    ['project_id'],
    async (query) => (await call(api.GET('/api/v1/workflows', { params: { query } }))) as Page<Workflow>,
  );

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/workflows', {
        body: { name: draft.name, project_id: projects.orFirst(draft.project_id) },
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
              <TextField {...field('name')} label="Name" autoFocus />
              <ProjectField
                projects={projects}
                value={projects.orFirst(draft.project_id)}
                onChange={(project_id) => setDraft({ ...draft, project_id })}
              />
            </div>
          </Form>
        </div>
      )}
      <ResourceList
        list={list}
        noun="workflows"
        empty="No workflows yet. Create one to start building."
        filters={[projects.filter]}
        columns={[
          { header: 'Name', cell: (w) => <Link to={`/workflows/${w.id}`}>{w.name}</Link> },
          { header: 'Project', cell: (w) => projects.nameOf(w.project_id) },
          {
            header: 'Published',
            cell: (w) =>
              w.published_version ? (
                <Badge value={`v${w.published_version}`} tone="good" />
              ) : (
                <Badge value="draft" />
              ),
          },
          { header: 'Updated', cell: (w) => formatTime(w.updated_at) },
        ]}
      />
    </>
  );
}
