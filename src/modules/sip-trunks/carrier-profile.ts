// What a trunk's `provider` changes. `generic` changes nothing: any carrier that takes SIP at a
// URI. `carrier_a` is the named carrier of spec 1.1, Twilio Elastic SIP Trunking; what its
// documentation asks of the equipment that sends it calls and takes calls from it is here, as data
// and pure functions, so the API (termination_uri checks), inbound admission (what its INVITEs
// carry) and the dialer (how our INVITEs look, how fast they go) read the same rules. The console
// steps and the reasons are in docs/carriers.md.
//
// carrier_a, in short:
//   - termination host: `<trunk>.pstn.twilio.com`, or pinned to an edge location
//     `<trunk>.pstn.<edge>.twilio.com` (edge names, legacy region names, `-ix` interconnects);
//     ports 5060 (UDP/TCP) and 5061 (TLS, secure trunking); no user part: the request-URI user is
//     the dialled number in E.164 with its `+`;
//   - caller ID: the From user, E.164; we send P-Asserted-Identity with the same number;
//   - codecs: G.711 only (PCMU, PCMA), so Opus is never offered on its trunks;
//   - at most 30 INVITEs per second from one of our addresses to one of its addresses;
//   - its INVITEs name the call and the account in X-Twilio-CallSid and X-Twilio-AccountSid, which
//     go into the call's metadata (`carrier_call_sid`, `carrier_account_sid`);
//   - it signals from one /30 per region, listed in CARRIER_A_SIGNALLING_CIDRS, for allowed_ips.
import type { TerminationTarget } from './trunk-fields.js';

export type TrunkProvider = 'carrier_a' | 'generic';

/** Current edge location names (the `<edge>` of `<trunk>.pstn.<edge>.twilio.com`). */
export const CARRIER_A_EDGES = [
  'ashburn',
  'umatilla',
  'dublin',
  'frankfurt',
  'singapore',
  'tokyo',
  'sao-paulo',
  'sydney',
] as const;

/** Region names the carrier still answers to (ashburn = us1, umatilla = us2, dublin = ie1, …). */
export const CARRIER_A_LEGACY_REGIONS = ['us1', 'us2', 'ie1', 'de1', 'sg1', 'jp1', 'br1', 'au1'] as const;

/** Private interconnect exchanges (`<trunk>.pstn.<exchange>-ix.twilio.com`). */
export const CARRIER_A_INTERCONNECTS = [
  'ashburn',
  'san-jose',
  'london',
  'frankfurt',
  'singapore',
  'tokyo',
  'sydney',
] as const;

/**
 * The carrier's signalling gateways, one /30 per region; its INVITEs come from these (allow them
 * all: a trunk fails over between regions). Media comes from CARRIER_A_MEDIA_CIDR.
 */
export const CARRIER_A_SIGNALLING_CIDRS = [
  '54.172.60.0/30', // North America, Virginia
  '54.244.51.0/30', // North America, Oregon
  '54.171.127.192/30', // Europe, Ireland
  '35.156.191.128/30', // Europe, Frankfurt
  '54.65.63.192/30', // Asia Pacific, Tokyo
  '54.169.127.128/30', // Asia Pacific, Singapore
  '54.252.254.64/30', // Asia Pacific, Sydney
  '177.71.206.192/30', // South America, São Paulo
] as const;

/** Where its RTP comes from (UDP ports 10000-60000), every edge alike. */
export const CARRIER_A_MEDIA_CIDR = '168.86.128.0/18';

/** INVITEs per second from one of our addresses to one of its addresses. */
export const CARRIER_A_CALLS_PER_SECOND = 30;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const EDGE_NAMES = [
  ...CARRIER_A_EDGES,
  ...CARRIER_A_LEGACY_REGIONS,
  ...CARRIER_A_INTERCONNECTS.map((x) => `${x}-ix`),
  ...CARRIER_A_LEGACY_REGIONS.map((x) => `${x}-ix`),
];
const HOST = new RegExp(`^(${LABEL})\\.pstn(?:\\.(${EDGE_NAMES.join('|')}))?\\.twilio\\.com\\.?$`);

/** The trunk name and edge (null: the carrier picks) of a termination host, or null when not one. */
export function carrierATerminationHost(host: string): { trunk: string; edge: string | null } | null {
  const m = HOST.exec(host.toLowerCase());
  return m ? { trunk: m[1]!, edge: m[2] ?? null } : null;
}

/**
 * Why a parsed termination_uri cannot be this provider's termination target, or null when it can.
 * `generic` takes every form trunk-fields accepts.
 */
export function terminationProblem(
  provider: string,
  target: TerminationTarget,
  transport: string,
): string | null {
  if (provider !== 'carrier_a') return null;
  if (!carrierATerminationHost(target.host)) {
    return (
      "must be the trunk's termination SIP URI at the carrier: <trunk>.pstn.twilio.com or " +
      `<trunk>.pstn.<edge>.twilio.com, the edge one of ${EDGE_NAMES.join(', ')}`
    );
  }
  if (target.user !== null) {
    return 'must not have a user part: the dialled number in E.164 is the request-URI user';
  }
  const tls = transport === 'tls' || target.scheme === 'sips';
  if (target.port !== null && target.port !== (tls ? 5061 : 5060)) {
    return tls ? 'port must be 5061 (TLS) or left out' : 'port must be 5060 (UDP, TCP) or left out';
  }
  return null;
}

/** What the dialer does differently on a trunk of this provider. */
export interface OutboundProfile {
  /** The codecs its trunks carry, by SDP name (null: all of ours, as SIP_CODECS orders them). */
  codecs: readonly string[] | null;
  /** Extra INVITE header fields for the caller ID `from` (E.164). */
  identityHeaders(from: string, ourHost: string): [string, string][];
  /** INVITEs per second to one termination host (null: unpaced). */
  callsPerSecond: number | null;
}

const GENERIC_OUT: OutboundProfile = {
  codecs: null,
  identityHeaders: () => [],
  callsPerSecond: null,
};

const CARRIER_A_OUT: OutboundProfile = {
  codecs: ['PCMU', 'PCMA'],
  identityHeaders: (from, ourHost) => [['P-Asserted-Identity', `<sip:${from}@${ourHost}>`]],
  callsPerSecond: CARRIER_A_CALLS_PER_SECOND,
};

export function outboundProfile(provider: string): OutboundProfile {
  return provider === 'carrier_a' ? CARRIER_A_OUT : GENERIC_OUT;
}

/** The header fields inbound admission may keep from an INVITE (lower-case names). */
export const CARRIER_HEADERS = ['x-twilio-callsid', 'x-twilio-accountsid'] as const;

const SID = {
  'x-twilio-callsid': { key: 'carrier_call_sid', shape: /^CA[0-9a-fA-F]{32}$/ },
  'x-twilio-accountsid': { key: 'carrier_account_sid', shape: /^AC[0-9a-fA-F]{32}$/ },
} as const;

/**
 * What a call's metadata keeps from the INVITE of a trunk of this provider: for carrier_a its call
 * and account identifiers, when they have the carrier's shape (anything else is dropped, so the
 * metadata never holds what a stranger typed into a header).
 */
export function inboundCarrierMetadata(
  provider: string,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  if (provider !== 'carrier_a') return {};
  const out: Record<string, string> = {};
  for (const [name, { key, shape }] of Object.entries(SID)) {
    const value = headers[name]?.trim();
    if (value !== undefined && shape.test(value)) out[key] = value;
  }
  return out;
}
