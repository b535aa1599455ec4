// Where a transfer goes, for both kinds: the trunk of the call's number, the Refer-To URI of a
// blind transfer, and the INVITE target (with or without the trunk's credentials) of a warm one.
//
// Refer-To for a `tel:+E164` destination. We send `sip:+E164@<termination host>[:port];user=phone`
// when the call's number has a trunk, and the tel: URI as given only when it has none:
//   - the REFER goes to the carrier itself (it is the far end of the caller's dialog), and the
//     carriers that document PSTN transfers by REFER ask for a SIP URI with the E.164 number as the
//     user part at their own outbound host: DIDWW (`sip:NUMBER@out.didww.com`), Twilio Elastic SIP
//     Trunking (`sip:+E164@<trunk>.pstn.twilio.com`, "transfers to the PSTN" enabled on the trunk),
//     Telnyx (`sip:+E164@sip.telnyx.com`);
//   - a sip: URI is understood by every REFER implementation (Asterisk, FreeSWITCH, Kamailio-based
//     SBCs), tel: in Refer-To only by some;
//   - `user=phone` (RFC 3261 19.1.1) says the user part is a telephone number, not a login.
// `sip:`/`sips:` destinations are sent exactly as given.
//
// Warm transfer targets: `tel:` goes through the trunk (termination_uri and transport, digest
// credentials from the sealed auth_password). A `sip:` destination is dialled at its own host; the
// trunk's credentials answer a challenge there only when that host is the trunk's termination host,
// so a workflow can never send the trunk password (or a digest made from it) to a host of its
// choosing.
import type { CallRecord, TrunkRecord } from '../../../modules/calls/call-records.service.js';
import type { ServiceDeps } from '../../../modules/context.js';
import { decryptTrunkPassword } from '../../../modules/sip-trunks/sip-trunks.service.js';
import { parseTerminationUri } from '../../../modules/sip-trunks/trunk-fields.js';
import {
  trunkTarget,
  type DigestCredentials,
  type SipTarget,
  type SipTransport,
} from '../outbound/sip-leg.js';

/** Our own number on the call: the one dialled for inbound calls, the caller ID for outbound. */
export function ourNumber(call: Pick<CallRecord, 'direction' | 'from_number' | 'to_number'>): string {
  return call.direction === 'inbound' ? call.to_number : call.from_number;
}

const TEL = /^tel:(\+[1-9]\d{1,14})$/;

/** The E.164 number of a `tel:` destination, or null. */
export function telNumber(destination: string): string | null {
  return TEL.exec(destination)?.[1] ?? null;
}

/** The Refer-To URI for a destination (see the note at the top); null when it cannot be read. */
export function referToUri(
  destination: string,
  trunk: Pick<TrunkRecord, 'termination_uri' | 'transport'> | undefined,
): string | null {
  const number = telNumber(destination);
  if (number === null) return /^sips?:/i.test(destination) ? destination : null;
  const target = trunk ? trunkTarget(trunk, number) : null;
  if (!target) return destination;
  return `${target.uri};user=phone`;
}

export interface DialTarget {
  target: SipTarget;
  /** Trunk credentials when the target is the trunk; empty ones (never accepted) otherwise. */
  auth: DigestCredentials;
}

const NO_CREDENTIALS: DigestCredentials = { username: '', password: '' };

/** Whether a leg to `host` goes through the trunk (its termination host), so the carrier's rules apply. */
export function onTrunk(host: string, trunk: Pick<TrunkRecord, 'termination_uri'>): boolean {
  return parseTerminationUri(trunk.termination_uri)?.host.toLowerCase() === host.toLowerCase();
}

/** Where the second leg of a warm transfer goes, and with which credentials; null if nowhere. */
export function warmTarget(
  destination: string,
  trunk: TrunkRecord | undefined,
  deps: Pick<ServiceDeps, 'secretBox'>,
): DialTarget | null {
  const credentials = (): DigestCredentials =>
    trunk ? { username: trunk.auth_username, password: decryptTrunkPassword(deps, trunk) } : NO_CREDENTIALS;
  const number = telNumber(destination);
  if (number !== null) {
    const target = trunk ? trunkTarget(trunk, number) : null;
    return target ? { target, auth: credentials() } : null;
  }
  const parsed = /^sips?:/i.test(destination) ? parseTerminationUri(destination) : null;
  if (!parsed || parsed.user === null) return null;
  const param = /;transport=(udp|tcp|tls)(?:;|$)/i.exec(parsed.params)?.[1]?.toLowerCase();
  const transport: SipTransport = parsed.scheme === 'sips' ? 'tls' : ((param as SipTransport) ?? 'udp');
  const target: SipTarget = { uri: destination, host: parsed.host, port: parsed.port, transport };
  return { target, auth: trunk && onTrunk(parsed.host, trunk) ? credentials() : NO_CREDENTIALS };
}
