// Reads what admission needs out of a parsed INVITE (src/telephony/sip/message), so the SIP
// listener hands admitInbound a request and its source address and nothing else.
import { CARRIER_HEADERS } from '../../../modules/sip-trunks/carrier-profile.js';
import { getHeader } from '../../sip/message/access.js';
import type { SipRequest } from '../../sip/message/types.js';
import type { Uri } from '../../sip/message/uri.js';
import type { InboundInvite } from '../../../modules/calls/inbound-admission.js';

function userOf(uri: Uri): string | null {
  if (uri.kind === 'sip') return uri.user ?? null;
  if (uri.kind === 'tel') return uri.number;
  return null;
}

function hostOf(uri: Uri): string | null {
  if (uri.kind !== 'sip') return null;
  // IPv6 references keep their brackets in the parsed URI; addresses are compared without.
  return uri.host.replace(/^\[(.*)\]$/, '$1');
}

/** The admission input of an INVITE that arrived from `sourceIp` (the transport's peer). */
export function inboundInviteOf(
  req: SipRequest,
  sourceIp: string,
  registeredTrunkId?: string,
): InboundInvite {
  return {
    ...(registeredTrunkId !== undefined ? { registeredTrunkId } : {}),
    // A tel: request URI names no domain, so it matches no workspace (404).
    requestUriHost: hostOf(req.uri) ?? '',
    requestUriUser: userOf(req.uri),
    toUser: userOf(req.to.uri),
    fromUser: userOf(req.from.uri),
    fromHost: hostOf(req.from.uri),
    privacy: getHeader(req, 'Privacy') ?? null,
    sourceIp,
    sipCallId: req.callId,
    assertedUser: assertedUserOf(req),
    carrierHeaders: carrierHeadersOf(req),
  };
}

/** The user of `<sip:user@…>` or `<tel:number>` in an identity header's first value, or null. */
function identityUser(value: string | undefined): string | null {
  if (value === undefined) return null;
  const m = /<\s*(?:sips?:([^@;>\s]+)@|tel:([^;>\s]+))/i.exec(value);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** P-Asserted-Identity (RFC 3325), else the older Remote-Party-ID some carriers still send. */
function assertedUserOf(req: SipRequest): string | null {
  return (
    identityUser(getHeader(req, 'P-Asserted-Identity')) ?? identityUser(getHeader(req, 'Remote-Party-ID'))
  );
}

/** The carrier header fields a provider reads, at most 200 characters each (longer: dropped). */
function carrierHeadersOf(req: SipRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CARRIER_HEADERS) {
    const value = getHeader(req, name);
    if (value !== undefined && value.length <= 200) out[name] = value;
  }
  return out;
}
