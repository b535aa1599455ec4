// The carrier-side set-up for a trunk, next to the values to paste: what a person does at their
// carrier once the trunk exists here.
import type { SipTrunk } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';

/** The named carrier's signalling gateways, one /30 per region: CARRIER_A_SIGNALLING_CIDRS of src/modules/sip-trunks/carrier-profile.ts (docs/carriers.md). */
const CARRIER_A_SIGNALLING = [
  '54.172.60.0/30',
  '54.244.51.0/30',
  '54.171.127.192/30',
  '35.156.191.128/30',
  '54.65.63.192/30',
  '54.169.127.128/30',
  '54.252.254.64/30',
  '177.71.206.192/30',
];

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
          {trunk.allowed_ips.length === 0 && (
            <li data-testid="carrier-ranges">
              Optional: accept calls only from the carrier&apos;s signalling ranges by setting this
              trunk&apos;s allowed IPs to <code>{CARRIER_A_SIGNALLING.join(', ')}</code>.
            </li>
          )}
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
            Under General, enable <strong>Call Transfer (SIP REFER)</strong>, and{' '}
            <strong>PSTN transfer</strong> if workflows transfer to phone numbers: the Transfer Call node
            hands callers over by REFER.
          </li>
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
