// One trunk: its live status (when registration or the health check is on), its origination URI
// and the carrier's set-up steps beside the edit form; delete is refused (409) while numbers use
// it, and the message says which.
import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import type { SipTrunk } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { Form } from '../../components/Form';
import { PageHeader } from '../../components/PageHeader';
import { CarrierSteps } from './CarrierSteps';
import { cidrList, registrationBody, TrunkFields, type TrunkDraft } from './trunk-form';
import { TrunkStatusDetails } from './TrunkStatus';

function draftOf(t: SipTrunk): TrunkDraft {
  return {
    name: t.name,
    provider: t.provider,
    transport: t.transport,
    termination_uri: t.termination_uri,
    auth_username: t.auth_username,
    auth_password: '',
    allowed_ips: t.allowed_ips.join(', '),
    register: t.register,
    registrar_uri: t.registrar_uri ?? '',
    health_check: t.health_check,
  };
}

export function TrunkPage() {
  const { id = '' } = useParams();
  const created = (useLocation().state as { created?: boolean } | null)?.created;
  const [draft, setDraft] = useState<TrunkDraft | null>(null);
  const [saved, setSaved] = useState(false);
  const trunk = useLoad(async () => {
    const { data } = await call(api.GET('/api/v1/sip-trunks/{id}', { params: { path: { id } } }));
    setDraft(draftOf(data));
    return data;
  }, [id]);

  if (trunk.error && !trunk.data) return <ErrorBanner error={trunk.error} onRetry={trunk.reload} />;
  if (!trunk.data || !draft) return <Loading />;
  const t = trunk.data;
  const hasStatus = t.register || t.health_check;

  const save = async () => {
    const { data } = await call(
      api.PATCH('/api/v1/sip-trunks/{id}', {
        params: { path: { id } },
        body: {
          name: draft.name,
          transport: draft.transport,
          termination_uri: draft.termination_uri,
          auth_username: draft.auth_username,
          allowed_ips: cidrList(draft.allowed_ips),
          ...registrationBody(draft),
          ...(draft.auth_password ? { auth_password: draft.auth_password } : {}),
        },
      }),
    );
    trunk.setData(data);
    setDraft(draftOf(data));
    setSaved(true);
  };

  return (
    <>
      <TrunkHeader trunk={t} />
      {created && (
        <div className="banner banner-info" role="status">
          Trunk created. Give your carrier the origination URI below, then register your numbers.
        </div>
      )}
      {/* Status first: beside the form on a wide screen, above it on a narrow one (app.css). */}
      <div className={hasStatus ? 'trunk-layout' : 'trunk-layout trunk-layout-no-status'}>
        {hasStatus && (
          <div className="card trunk-status-card">
            <h2>Status</h2>
            <TrunkStatusDetails trunk={t} />
          </div>
        )}
        <div className="card trunk-settings-card">
          <h2>Settings</h2>
          {saved && (
            <div className="banner banner-info" role="status">
              Saved.
            </div>
          )}
          <Form label="Trunk settings" submitLabel="Save changes" onSubmit={save}>
            <TrunkFields draft={draft} onChange={(d) => (setDraft(d), setSaved(false))} editing />
          </Form>
        </div>
        <div className="card trunk-steps-card">
          <CarrierSteps trunk={t} />
        </div>
      </div>
    </>
  );
}

/** The trunk's name, provider and transport, with its delete button. */
function TrunkHeader({ trunk: t }: { trunk: SipTrunk }) {
  const navigate = useNavigate();
  return (
    <PageHeader
      title={t.name}
      crumb={<Link to="/telephony/trunks">SIP trunks</Link>}
      description={`${t.provider === 'carrier_a' ? 'Carrier A' : 'Generic SIP'} trunk over ${t.transport.toUpperCase()}`}
      actions={
        <ConfirmButton
          label="Delete trunk"
          question="Delete this trunk?"
          onConfirm={async () => {
            await call(api.DELETE('/api/v1/sip-trunks/{id}', { params: { path: { id: t.id } } }));
            navigate('/telephony/trunks');
          }}
        />
      }
    />
  );
}
