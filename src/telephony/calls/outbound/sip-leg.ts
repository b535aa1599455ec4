// The seam between the outbound call state machine and the SIP stack: what one outbound INVITE
// leg must offer (SipLeg) and report (SipLegEvents), and how a trunk becomes the INVITE's target.
// The stack implements SipLeg; the state machine never sees a SIP message.
import type { TrunkRecord } from '../../../modules/calls/call-records.service.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { RtpCallMedia } from '../call-media/rtp-call-media.js';
import { parseTerminationUri } from '../../../modules/sip-trunks/trunk-fields.js';

export type SipTransport = 'udp' | 'tcp' | 'tls';

/** Where the INVITE goes: the trunk's termination host, the dialled number as the user part. */
export interface SipTarget {
  /** Request URI, e.g. `sip:+14155550100@trunk.example.com:5061;transport=tls`. */
  uri: string;
  /** DNS name, IPv4, or IPv6 without brackets. */
  host: string;
  /** Null: the default port of the transport (RFC 3263 resolution is the stack's). */
  port: number | null;
  transport: SipTransport;
}

export interface DigestCredentials {
  username: string;
  password: string;
}

export interface InviteOptions {
  /** Caller ID: the registered number (E.164) the call goes out from; the From user part. */
  from: string;
  /** Credentials to answer the trunk's 401/407 challenge with, once (RFC 3261 22.2). */
  auth: DigestCredentials;
  /** The call's id, for the stack's logs. */
  callId: string;
  /**
   * What the trunk's provider asks of the INVITE (modules/sip-trunks/carrier-profile.ts): the
   * codecs it carries (by SDP name, in our order; none: every one of ours) and extra header fields
   * (carrier_a: P-Asserted-Identity with the caller ID).
   */
  carrier?: { codecs?: readonly string[]; headers?: readonly (readonly [string, string])[] };
}

/** What the stack reports about the leg, in the order it happens. */
export interface SipLegEvents {
  /** A 1xx response to the INVITE (100 included; the state machine ignores what it does not use). */
  provisional(status: number): void;
  /**
   * The final response to the INVITE. For a 2xx the stack has sent the ACK. `withCredentials`: the
   * INVITE that drew this response carried our credentials (a first 401/407 is answered by the
   * stack and never reported; a second one is reported with `withCredentials: true`).
   */
  final(status: number, info: { withCredentials: boolean }): void;
  /** The far end sent BYE after the answer (the stack has answered it 200). */
  bye(): void;
  /** Timer B or the transport failed before a final response, or the dialog died after it. */
  transportError(error?: Error): void;
}

export interface SipLeg {
  /** Sends the INVITE; returns at once, everything else arrives through `events`. */
  invite(target: SipTarget, options: InviteOptions, events: SipLegEvents): void;
  /** CANCEL before a final response (RFC 3261 9.1); the 487 that follows is still reported. */
  cancel(): void;
  /** BYE after a 2xx (also for a 2xx that crossed our CANCEL). */
  bye(): void;
  /** The leg's media, once bound (recording and answering-machine detection listen to it). */
  readonly media?: RtpCallMedia;
  readonly rtp?: RtpSession | null;
}

/** Makes one leg per outbound call (the SIP side's part). */
export type SipLegFactory = () => SipLeg;

/** The INVITE target of a trunk for a dialled number; null when termination_uri does not parse. */
export function trunkTarget(
  trunk: Pick<TrunkRecord, 'termination_uri' | 'transport'>,
  to: string,
): SipTarget | null {
  const t = parseTerminationUri(trunk.termination_uri);
  if (!t) return null;
  const transport: SipTransport = t.scheme === 'sips' ? 'tls' : (trunk.transport as SipTransport);
  const scheme = t.scheme === 'sips' ? 'sips' : 'sip';
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  // The trunk's own transport wins over a transport parameter written into termination_uri.
  const params = t.params
    .split(';')
    .filter((p) => p !== '' && !/^transport=/i.test(p))
    .map((p) => `;${p}`)
    .join('');
  const transportParam = transport === 'udp' || scheme === 'sips' ? '' : `;transport=${transport}`;
  return {
    uri: `${scheme}:${to}@${host}${t.port === null ? '' : `:${t.port}`}${transportParam}${params}`,
    host: t.host,
    port: t.port,
    transport,
  };
}
