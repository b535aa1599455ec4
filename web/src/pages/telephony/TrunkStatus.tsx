// A trunk's live state as the SIP node reports it: its REGISTER binding at the carrier (when
// `register` is on) and the OPTIONS health of its termination host (when `health_check` is on).
import type { SipTrunk } from '../../api/types';
import { Badge } from '../../components/Badge';
import { formatTime } from '../../components/format';

const REGISTRATION_TONE = { registering: 'info', registered: 'good', failed: 'bad' } as const;
const HEALTH_TONE = { up: 'good', down: 'bad', unknown: 'neutral' } as const;

/** One line for a list: the registration and health badges, or "—" when neither is asked for. */
export function TrunkStatusBadges({ trunk }: { trunk: SipTrunk }) {
  if (!trunk.register && !trunk.health_check) return <span className="muted">—</span>;
  return (
    <span className="badge-row">
      {trunk.register && (
        <Badge
          value={trunk.registration_status ?? 'registering'}
          tone={REGISTRATION_TONE[trunk.registration_status ?? 'registering']}
        />
      )}
      {trunk.health_check && (
        <Badge value={`carrier ${trunk.health ?? 'unknown'}`} tone={HEALTH_TONE[trunk.health ?? 'unknown']} />
      )}
    </span>
  );
}

/** The full account, for the trunk's own page. */
export function TrunkStatusDetails({ trunk }: { trunk: SipTrunk }) {
  return (
    <dl className="props" aria-label="Trunk status">
      <dt>Registration</dt>
      <dd>
        {trunk.register ? (
          <>
            <Badge
              value={trunk.registration_status ?? 'registering'}
              tone={REGISTRATION_TONE[trunk.registration_status ?? 'registering']}
            />
            {trunk.registration_status === 'registered' && trunk.registered_until && (
              <span className="muted"> until {formatTime(trunk.registered_until)}</span>
            )}
            {trunk.registration_error && <div className="field-error">{trunk.registration_error}</div>}
          </>
        ) : (
          <span className="muted">Off: the carrier sends calls to the origination URI.</span>
        )}
      </dd>
      <dt>Carrier health</dt>
      <dd>
        {trunk.health_check ? (
          <Badge value={trunk.health ?? 'unknown'} tone={HEALTH_TONE[trunk.health ?? 'unknown']} />
        ) : (
          <span className="muted">Not checked.</span>
        )}
      </dd>
    </dl>
  );
}
