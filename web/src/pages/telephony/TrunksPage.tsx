// SIP trunks: the carrier connections. Creating one shows its origination URI and the carrier
// steps at once, on the trunk's own page.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { useResourceList } from '../../api/list-query';
import type { Page, SipTrunk } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';
import { cidrList, EMPTY_TRUNK, registrationBody, TrunkFields } from './trunk-form';
import { TrunkStatusBadges } from './TrunkStatus';
import { FormCard } from '../../components/FormCard';

export function TrunksPage() {
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState(EMPTY_TRUNK);
  const navigate = useNavigate();
  const list = useResourceList<SipTrunk, never>(
    [],
    async (query) => (await call(api.GET('/api/v1/sip-trunks', { params: { query } }))) as Page<SipTrunk>,
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
          ...registrationBody(draft),
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
        <FormCard
          title="New trunk"
          submitLabel="Create trunk"
          onSubmit={create}
          onCancel={() => setCreating(false)}
        >
          <TrunkFields draft={draft} onChange={setDraft} />
        </FormCard>
      )}
      <ResourceList
        list={list}
        noun="trunks"
        empty="No trunks yet. Create one with your carrier's termination host and credentials."
        columns={[
          { header: 'Name', cell: (t) => <Link to={`/telephony/trunks/${t.id}`}>{t.name}</Link> },
          { header: 'Provider', cell: (t) => (t.provider === 'carrier_a' ? 'Carrier A' : 'Generic SIP') },
          { header: 'Transport', cell: (t) => t.transport.toUpperCase() },
          {
            header: 'Origination URI',
            cell: (t) => (
              <span className="copy-row">
                <code className="mono">{t.origination_uri}</code>
                <CopyButton value={t.origination_uri} label="Copy" />
              </span>
            ),
          },
          { header: 'Registration and health', cell: (t) => <TrunkStatusBadges trunk={t} /> },
        ]}
      />
    </>
  );
}
