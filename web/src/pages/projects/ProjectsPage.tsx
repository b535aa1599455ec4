// Projects: what groups agents, workflows, numbers, sessions and webhook endpoints. Rename and
// describe inline; delete is refused (409) while the project holds anything, and says what.
import { useState } from 'react';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import { invalidateProjects } from '../../api/projects';
import type { Page, Project } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { fieldBinder, TextField } from '../../components/fields';
import { Form } from '../../components/Form';
import { formatTime } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';

function ProjectRow({ p, onChanged }: { p: Project; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({ name: p.name, description: p.description ?? '' });
  const field = fieldBinder(draft, setDraft);
  if (editing) {
    return (
      <tr>
        <td colSpan={4}>
          <Form
            label={`Edit ${p.name}`}
            submitLabel="Save"
            onCancel={() => setEditing(false)}
            onSubmit={async () => {
              await call(
                api.PATCH('/api/v1/projects/{id}', {
                  params: { path: { id: p.id } },
                  body: { name: draft.name, description: draft.description },
                }),
              );
              setEditing(false);
              invalidateProjects();
              onChanged();
            }}
          >
            <div className="grid-2">
              <TextField {...field('name')} label="Name" autoFocus />
              <TextField {...field('description')} label="Description" />
            </div>
          </Form>
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td>
        <strong>{p.name}</strong>
      </td>
      <td>{p.description ?? <span className="muted">—</span>}</td>
      <td>{formatTime(p.created_at)}</td>
      <td>
        <div className="row-actions">
          <button type="button" className="btn btn-small" onClick={() => setEditing(true)}>
            Edit
          </button>
          <ConfirmButton
            label="Delete"
            question={`Delete ${p.name}?`}
            onConfirm={async () => {
              await call(api.DELETE('/api/v1/projects/{id}', { params: { path: { id: p.id } } }));
              invalidateProjects();
              onChanged();
            }}
          />
        </div>
      </td>
    </tr>
  );
}

export function ProjectsPage() {
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState({ name: '', description: '' });
  const field = fieldBinder(draft, setDraft);
  const list = usePagedList<Project>(
    async (query) => (await call(api.GET('/api/v1/projects', { params: { query } }))) as Page<Project>,
    {},
  );
  const create = async () => {
    await call(
      api.POST('/api/v1/projects', {
        body: { name: draft.name, ...(draft.description.trim() ? { description: draft.description } : {}) },
      }),
    );
    invalidateProjects();
    setDraft({ name: '', description: '' });
    setCreating(false);
    list.reload();
  };
  return (
    <>
      <PageHeader
        title="Projects"
        description="A project groups agents, workflows, phone numbers, sessions and webhook endpoints."
        actions={
          !creating && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New project
            </button>
          )
        }
      />
      {creating && (
        <div className="card">
          <Form
            label="New project"
            submitLabel="Create project"
            onSubmit={create}
            onCancel={() => setCreating(false)}
          >
            <div className="grid-2">
              <TextField {...field('name')} label="Name" autoFocus placeholder="Front desk" />
              <TextField {...field('description')} label="Description (optional)" />
            </div>
          </Form>
        </div>
      )}
      {list.error && <ErrorBanner error={list.error} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <div className="card card-flush">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <ProjectRow key={p.id + p.updated_at} p={p} onChanged={list.reload} />
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && (
            <p className="empty">No projects yet. Everything else lives in one, so start here.</p>
          )}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="projects" />
        </div>
      )}
    </>
  );
}
