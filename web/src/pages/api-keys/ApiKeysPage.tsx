// API keys: create one with the scopes it needs (its secret shown once, with a copy button), see
// when each was last used, revoke one (immediately and for good).
import { useState } from 'react';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import type { ApiKey, Page } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SecretOnce } from '../../components/CopyButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { fieldBinder, CheckboxGroup, TextField } from '../../components/fields';
import { formatTime, relative } from '../../components/format';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';
import { FormCard } from '../../components/FormCard';

const SCOPES = [
  { value: 'read', label: 'read — every GET' },
  { value: 'write', label: 'write — projects, agents, workflows, keys, webhooks (implies read)' },
  { value: 'calls:write', label: 'calls:write — place and end calls and sessions' },
  { value: 'telephony', label: 'telephony — trunks and numbers' },
  { value: 'usage:read', label: 'usage:read — usage and plan' },
];

export function ApiKeysPage() {
  const { key: signedInKey } = useAuth();
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState({ name: '', scopes: ['read'] });
  const field = fieldBinder(draft, setDraft);
  const [created, setCreated] = useState<string | null>(null);
  const list = usePagedList<ApiKey>(
    async (query) => (await call(api.GET('/api/v1/api-keys', { params: { query } }))) as Page<ApiKey>,
    {},
  );

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/api-keys', { body: { name: draft.name.trim(), scopes: draft.scopes } as never }),
    );
    setCreated((data as { key: string }).key);
    setCreating(false);
    setDraft({ name: '', scopes: ['read'] });
    list.reload();
  };

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys for the API and this dashboard. Give each the scopes it needs; a key can only create keys with scopes it holds."
        actions={
          !creating && (
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => (setCreating(true), setCreated(null))}
            >
              Create key
            </button>
          )
        }
      />
      {created && (
        <SecretOnce title="Your new API key" value={created} onDone={() => setCreated(null)}>
          Copy it now and keep it somewhere safe: only its prefix is shown again.
        </SecretOnce>
      )}
      {creating && (
        <FormCard
          title="New key"
          formLabel="New API key"
          submitLabel="Create key"
          onSubmit={create}
          onCancel={() => setCreating(false)}
        >
          <TextField {...field('name')} label="Name" placeholder="CRM integration" autoFocus />
          <CheckboxGroup
            name="scopes"
            legend="Scopes"
            options={SCOPES}
            value={draft.scopes}
            onChange={(scopes) => setDraft({ ...draft, scopes })}
          />
        </FormCard>
      )}
      {list.error && <ErrorBanner error={list.error} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <KeyTable keys={list.data} signedInKey={signedInKey} onFollow={list.follow} onRevoked={list.reload} />
      )}
    </>
  );
}

/** The keys of this page: name, prefix, scopes, last use, creation, and revoking (not this tab's own). */
function KeyTable({
  keys,
  signedInKey,
  onFollow,
  onRevoked,
}: {
  keys: Page<ApiKey>;
  /** The key this tab is signed in with. */
  signedInKey: string | null | undefined;
  onFollow: (link: string) => void;
  onRevoked: () => void;
}) {
  return (
    <div className="card card-flush">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Last used</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td className="mono">{k.prefix}…</td>
              <td className="mono">{k.scopes.join(', ')}</td>
              <td title={k.last_used_at ?? undefined}>{relative(k.last_used_at)}</td>
              <td>{formatTime(k.created_at)}</td>
              <td>
                <div className="row-actions">
                  {signedInKey?.startsWith(k.prefix) ? (
                    <span className="muted">this tab&apos;s key</span>
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke ${k.name}? It stops working at once.`}
                      onConfirm={async () => {
                        await call(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } }));
                        onRevoked();
                      }}
                    />
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager links={keys.links} meta={keys.meta} onFollow={onFollow} noun="keys" />
    </div>
  );
}
