// The carrier-side set-up for a trunk, next to the values to paste: what a person does at their
// carrier once the trunk exists here.
import type { SipTrunk } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';

export function CarrierSteps({ trunk }: { trunk: SipTrunk }) {
  return (
    <div>
      <h2>Set up your carrier</h2>
      <p className="muted">Your inbound SIP address (origination URI):</p>
      <div className="copy-row">
        <code className="uri" data-testid="origination-uri">
          {trunk.origination_uri}
        </code>
        <CopyButton value={trunk.origination_uri} label="Copy URI" />
      </div>
      {trunk.provider === 'carrier_a' ? (
        <ol className="steps">
          <li>
            At the carrier, set the trunk&apos;s <strong>origination URI</strong> to the address above, with
            priority 10, weight 10, enabled.
          </li>
          <li>
            Set its <strong>termination SIP URI</strong> to <code>{trunk.termination_uri}</code>.
          </li>
          <li>
            Add a <strong>credential list</strong> with username <code>{trunk.auth_username}</code> and the
            password you entered here: Switchboard signs outbound calls with them.
          </li>
          {trunk.transport === 'tls' && (
            <li>
              Enable <strong>secure trunking</strong> (TLS + SRTP): calls use port 5061.
            </li>
          )}
          <li>
            Assign your numbers to that trunk at the carrier, then register each one here under Phone numbers.
          </li>
        </ol>
      ) : (
        <ol className="steps">
          <li>
            Point the carrier&apos;s outbound route (calls to you) at the address above:{' '}
            {trunk.transport === 'tls'
              ? 'TLS on port 5061.'
              : `${trunk.transport.toUpperCase()} on port 5060.`}
          </li>
          <li>
            Outbound calls leave through <code>{trunk.termination_uri}</code>, authenticated as{' '}
            <code>{trunk.auth_username}</code>.
          </li>
          <li>
            Inbound calls are recognised by the SIP domain
            {trunk.allowed_ips.length ? ` and only from ${trunk.allowed_ips.join(', ')}` : ''}. Media is RTP
            with Opus or G.711; keypad tones as RFC 4733 events.
          </li>
          <li>Register your numbers under Phone numbers and give each a dispatch rule.</li>
        </ol>
      )}
    </div>
  );
}
