// SIP trunks: the carrier connections. Creating one shows its origination URI and the carrier
// steps at once, on the trunk's own page.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { usePagedList } from '../../api/hooks';
import type { Page, SipTrunk } from '../../api/types';
import { Badge } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { Form } from '../../components/Form';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';
import { cidrList, EMPTY_TRUNK, TrunkFields } from './trunk-form';

export function TrunksPage() {
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState(EMPTY_TRUNK);
  const navigate = useNavigate();
  const list = usePagedList<SipTrunk>(
    async (query) => (await call(api.GET('/api/v1/sip-trunks', { params: { query } }))) as Page<SipTrunk>,
    {},
  );

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/sip-trunks', {
        body: {
          name: draft.name,
          provider: draft.provider,
          transport: draft.transport,
          termination_uri: draft.termination_uri,
          auth_username: draft.auth_username,
          auth_password: draft.auth_password,
          ...(draft.allowed_ips.trim() ? { allowed_ips: cidrList(draft.allowed_ips) } : {}),
        },
      }),
    );
    navigate(`/telephony/trunks/${data.id}`, { state: { created: true } });
  };

  return (
    <>
      <PageHeader
        title="SIP trunks"
        description="Your carrier connections. Inbound calls arrive through a trunk and outbound calls leave through it."
        actions={
          !creating && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New trunk
            </button>
          )
        }
      />
      {creating && (
        <div className="card">
          <h2>New trunk</h2>
          <Form
            label="New trunk"
            submitLabel="Create trunk"
            onSubmit={create}
            onCancel={() => setCreating(false)}
          >
            <TrunkFields draft={draft} onChange={setDraft} />
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
                <th scope="col">Provider</th>
                <th scope="col">Transport</th>
                <th scope="col">Origination URI</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((t) => (
                <tr key={t.id}>
                  <td>
                    <Link to={`/telephony/trunks/${t.id}`}>{t.name}</Link>
                  </td>
                  <td>{t.provider === 'carrier_a' ? 'Carrier A' : 'Generic SIP'}</td>
                  <td>{t.transport.toUpperCase()}</td>
                  <td>
                    <span className="copy-row">
                      <code className="mono">{t.origination_uri}</code>
                      <CopyButton value={t.origination_uri} label="Copy" />
                    </span>
                  </td>
                  <td>
                    <Badge value={t.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && (
            <p className="empty">
              No trunks yet. Create one with your carrier&apos;s termination host and credentials.
            </p>
          )}
          <Pager links={list.data.links} meta={list.data.meta} onFollow={list.follow} noun="trunks" />
        </div>
      )}
    </>
  );
}
