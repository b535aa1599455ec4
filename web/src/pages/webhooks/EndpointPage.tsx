// One webhook endpoint: edit, pause or resume, rotate the signing secret (the new one shown once),
// delete, and its delivery log.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import type { WebhookEndpoint } from '../../api/types';
import { Badge } from '../../components/Badge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SecretOnce } from '../../components/CopyButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { CheckboxGroup, TextField } from '../../components/fields';
import { Form } from '../../components/Form';
import { formatTime } from '../../components/format';
import { PageHeader, Section } from '../../components/PageHeader';
import { DeliveryLog } from './DeliveryLog';
import { EVENT_TYPES } from './events';

type Patch = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'status'>>;

interface Draft {
  url: string;
  events: string[];
  description: string;
}

export function EndpointPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [logKey, setLogKey] = useState(0);
  const endpoint = useLoad(async () => {
    const { data } = await call(api.GET('/api/v1/webhook-endpoints/{id}', { params: { path: { id } } }));
    setDraft({ url: data.url, events: data.events, description: data.description ?? '' });
    return data;
  }, [id]);

  if (endpoint.error && !endpoint.data)
    return <ErrorBanner error={endpoint.error} onRetry={endpoint.reload} />;
  if (!endpoint.data || !draft) return <Loading />;
  const e = endpoint.data;
  const patch = async (body: Patch) => {
    const { data } = await call(
      api.PATCH('/api/v1/webhook-endpoints/{id}', { params: { path: { id } }, body: body as never }),
    );
    endpoint.setData(data);
    setLogKey((k) => k + 1);
  };

  return (
    <>
      <PageHeader
        title={e.url}
        crumb={<Link to="/webhooks">Webhooks</Link>}
        description={
          <>
            <Badge value={e.status} />{' '}
            {e.paused_reason === 'auto' && (
              <span className="muted">paused automatically after 7 days of failures</span>
            )}
            {e.last_success_at && (
              <span className="muted"> · last success {formatTime(e.last_success_at)}</span>
            )}
          </>
        }
        actions={
          <EndpointActions
            id={id}
            status={e.status}
            onPatch={patch}
            onSecret={setSecret}
            onDeleted={() => navigate('/webhooks')}
          />
        }
      />
      {secret && (
        <SecretOnce title="New signing secret" value={secret} onDone={() => setSecret(null)}>
          Update your receiver now: this secret is shown only this once.
        </SecretOnce>
      )}
      <EndpointSettings draft={draft} onDraft={setDraft} onSave={patch} />
      <div className="card">
        <DeliveryLog key={logKey} endpointId={id} />
      </div>
    </>
  );
}

/** Pause or resume deliveries, rotate the signing secret, delete the endpoint. */
function EndpointActions({
  id,
  status,
  onPatch,
  onSecret,
  onDeleted,
}: {
  id: string;
  status: WebhookEndpoint['status'];
  onPatch: (body: Patch) => Promise<void>;
  /** The new signing secret, to be shown once. */
  onSecret: (secret: string) => void;
  onDeleted: () => void;
}) {
  return (
    <>
      {status === 'active' ? (
        <ConfirmButton
          className="btn"
          label="Pause"
          question="Pause deliveries? Events are kept as failed and can be redelivered."
          confirmLabel="Pause"
          onConfirm={() => onPatch({ status: 'paused' })}
        />
      ) : (
        <button type="button" className="btn" onClick={() => void onPatch({ status: 'active' })}>
          Resume
        </button>
      )}
      <ConfirmButton
        className="btn"
        label="Rotate secret"
        question="Replace the signing secret? Deliveries from the next attempt on use the new one."
        confirmLabel="Rotate"
        onConfirm={async () => {
          const { data } = await call(
            api.POST('/api/v1/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } } }),
          );
          onSecret(data.secret);
        }}
      />
      <ConfirmButton
        label="Delete"
        question="Delete this endpoint and its log?"
        onConfirm={async () => {
          await call(api.DELETE('/api/v1/webhook-endpoints/{id}', { params: { path: { id } } }));
          onDeleted();
        }}
      />
    </>
  );
}

/** The endpoint's URL, description and events, saved with one PATCH. */
function EndpointSettings({
  draft,
  onDraft,
  onSave,
}: {
  draft: Draft;
  onDraft: (draft: Draft) => void;
  onSave: (body: Patch) => Promise<void>;
}) {
  return (
    <Section title="Settings" id="settings">
      <Form
        label="Endpoint settings"
        submitLabel="Save"
        onSubmit={() =>
          onSave({
            url: draft.url.trim(),
            events: draft.events,
            description: draft.description.trim() || null,
          } as never)
        }
      >
        <div className="grid-2">
          <TextField
            name="url"
            label="URL"
            type="url"
            value={draft.url}
            onChange={(url) => onDraft({ ...draft, url })}
          />
          <TextField
            name="description"
            label="Description"
            value={draft.description}
            onChange={(description) => onDraft({ ...draft, description })}
          />
        </div>
        <CheckboxGroup
          name="events"
          legend="Events"
          options={EVENT_TYPES}
          value={draft.events}
          onChange={(events) => onDraft({ ...draft, events })}
        />
      </Form>
    </Section>
  );
}
