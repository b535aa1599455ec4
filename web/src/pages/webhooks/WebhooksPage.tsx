// Webhook endpoints: where the platform's events go. A new endpoint's signing secret is shown
// here once, with a copy button.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList, type ResourceListState } from '../../api/list-query';
import { useProjects, type Projects } from '../../api/projects';
import type { Body, Page, WebhookEndpoint } from '../../api/types';
import { Badge } from '../../components/Badge';
import { SecretOnce } from '../../components/CopyButton';
import { fieldBinder, CheckboxGroup, TextField } from '../../components/fields';
import { ProjectField } from '../../components/ProjectField';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';
import { EVENT_TYPES } from './events';
import { FormCard } from '../../components/FormCard';

type EventType = NonNullable<Body<'/api/v1/webhook-endpoints', 'post'>>['events'][number];

const EMPTY = { project_id: '', url: '', description: '', events: ['call.ended', 'session.ended'] };

export function WebhooksPage() {
  const projects = useProjects();
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState(EMPTY);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const list = useResourceList<WebhookEndpoint, 'project_id'>(
    ['project_id'],
    async (query) =>
      (await call(api.GET('/api/v1/webhook-endpoints', { params: { query } }))) as Page<WebhookEndpoint>,
  );
  const chosenProject = projects.orFirst(draft.project_id);

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/webhook-endpoints', {
        body: {
          project_id: chosenProject,
          url: draft.url.trim(),
          events: draft.events as EventType[],
          ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
        },
      }),
    );
    setCreated({ id: data.id, secret: data.secret });
    setCreating(false);
    setDraft(EMPTY);
    list.reload();
  };

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed HTTPS POSTs of call, session and workflow events to your systems, retried for a day and logged."
        actions={
          !creating && (
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => (setCreating(true), setCreated(null))}
            >
              Add endpoint
            </button>
          )
        }
      />
      {created && (
        <SecretOnce title="Signing secret" value={created.secret} onDone={() => setCreated(null)}>
          Verify each delivery&apos;s X-Service-Signature with this secret. It is shown only now;{' '}
          <Link to={`/webhooks/${created.id}`}>open the endpoint</Link> to rotate it later.
        </SecretOnce>
      )}
      {creating && (
        <NewEndpointForm
          draft={draft}
          onDraft={setDraft}
          projects={projects}
          chosenProject={chosenProject}
          onSubmit={create}
          onCancel={() => setCreating(false)}
        />
      )}
      <EndpointList list={list} projects={projects} />
    </>
  );
}

/** The new endpoint's URL, project, events and description. */
function NewEndpointForm({
  draft,
  onDraft,
  projects,
  chosenProject,
  onSubmit,
  onCancel,
}: {
  draft: typeof EMPTY;
  onDraft: (draft: typeof EMPTY) => void;
  projects: Projects;
  /** The project picked, else the first. */
  chosenProject: string;
  onSubmit: () => Promise<void>;
  onCancel: () => void;
}) {
  const field = fieldBinder(draft, onDraft);
  return (
    <FormCard
      title="New endpoint"
      formLabel="New webhook endpoint"
      submitLabel="Add endpoint"
      onSubmit={onSubmit}
      onCancel={onCancel}
    >
      <div className="grid-2">
        <TextField
          {...field('url')}
          label="URL"
          type="url"
          placeholder="https://example.com/hooks/switchboard"
          autoFocus
          hint="https, or http to an address in WEBHOOK_ALLOWED_CIDRS."
        />
        <ProjectField
          projects={projects}
          value={chosenProject}
          onChange={(project_id) => onDraft({ ...draft, project_id })}
        />
      </div>
      <CheckboxGroup
        name="events"
        legend="Events"
        options={EVENT_TYPES}
        value={draft.events}
        onChange={(events) => onDraft({ ...draft, events })}
      />
      <TextField {...field('description')} label="Description (optional)" placeholder="CRM sync" />
    </FormCard>
  );
}

/** The endpoints: URL and description, project, events, status (failing since when). */
function EndpointList({
  list,
  projects,
}: {
  list: ResourceListState<WebhookEndpoint, 'project_id'>;
  projects: Projects;
}) {
  return (
    <ResourceList
      list={list}
      noun="endpoints"
      empty="No endpoints yet."
      filters={[projects.filter]}
      columns={[
        {
          header: 'URL',
          cell: (e) => (
            <>
              <Link to={`/webhooks/${e.id}`} className="mono">
                {e.url}
              </Link>
              {e.description && <div className="muted">{e.description}</div>}
            </>
          ),
        },
        { header: 'Project', cell: (e) => projects.nameOf(e.project_id) },
        { header: 'Events', cell: (e) => e.events.join(', '), className: 'mono' },
        {
          header: 'Status',
          cell: (e) => (
            <>
              <Badge value={e.status} />
              {e.failing_since && (
                <div className="muted">failing since {new Date(e.failing_since).toLocaleDateString()}</div>
              )}
            </>
          ),
        },
      ]}
    />
  );
}
