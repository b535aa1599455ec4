// Where a trunk's REGISTER and OPTIONS go and what they say about us: the registrar (registrar_uri,
// else the termination_uri host), the transport (sips: → TLS, else the trunk's), the address of
// record, and our Contact. The Contact carries `sb-trunk=<trunk id>.<mac>`: an INVITE that comes
// back on it names its trunk, and the MAC (HMAC-SHA-256 under the server key, 16 hex digits) keeps a
// stranger who knows a trunk id from claiming it. Pure, apart from the key.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseTerminationUri } from '../../../modules/sip-trunks/trunk-fields.js';
import type { WatchedTrunk as SipTrunkTable } from '../../../modules/sip-trunks/trunk-watch.service.js';
import type { Destination } from '../../sip/transaction/types.js';

export type Wire = 'UDP' | 'TCP' | 'TLS';

/** Our listening addresses (TelephonyNode.address). */
export interface LocalAddress {
  readonly host: string;
  readonly udp: number;
  readonly tcp?: number;
  readonly tls?: number;
}

export interface PeerAddress {
  /** DNS name, IPv4, or IPv6 without brackets. */
  readonly host: string;
  readonly port: number | null;
  readonly transport: Wire;
  /** `sip:host[:port][;transport=…]` (sips: for a sips: URI). */
  readonly uri: string;
}

const DEFAULT_PORT: Record<Wire, number> = { UDP: 5060, TCP: 5060, TLS: 5061 };

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The host a trunk field names, as a SIP URI for REGISTER or OPTIONS; null when it does not parse. */
export function peerOf(uri: string, trunkTransport: string): PeerAddress | null {
  const t = parseTerminationUri(uri);
  if (!t) return null;
  const transport: Wire = t.scheme === 'sips' ? 'TLS' : (trunkTransport.toUpperCase() as Wire);
  const scheme = t.scheme === 'sips' ? 'sips' : 'sip';
  const param = scheme === 'sip' && transport !== 'UDP' ? `;transport=${transport.toLowerCase()}` : '';
  return {
    host: t.host,
    port: t.port,
    transport,
    uri: `${scheme}:${bracket(t.host)}${t.port === null ? '' : `:${t.port}`}${param}`,
  };
}

export function registrarOf(trunk: SipTrunkTable): PeerAddress | null {
  return peerOf(trunk.registrar_uri ?? trunk.termination_uri, trunk.transport);
}

/** A destination for the transport without DNS (an IP, or a name the transport looks up). */
export function directDestination(peer: PeerAddress): Destination {
  return {
    transport: peer.transport,
    host: peer.host,
    port: peer.port ?? DEFAULT_PORT[peer.transport],
    reliable: peer.transport !== 'UDP',
  };
}

/** A SIP user part: unreserved and user-unreserved characters kept, the rest %-escaped. */
export function sipUser(value: string): string {
  return value.replace(/[^A-Za-z0-9\-_.!~*'()&=+$,]/g, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** `sip:<username>@<registrar host>`: To and From of our REGISTER. */
export function aorOf(trunk: SipTrunkTable, registrar: PeerAddress): string {
  return `sip:${sipUser(trunk.auth_username)}@${bracket(registrar.host)}`;
}

/** Our listening port for a transport (UDP's when that transport is not listening). */
export function localPort(local: LocalAddress, transport: Wire): number {
  if (transport === 'TCP') return local.tcp ?? local.udp;
  if (transport === 'TLS') return local.tls ?? local.udp;
  return local.udp;
}

function mac(key: Uint8Array, trunkId: string): string {
  return createHmac('sha256', key)
    .update(`switchboard sip contact v1\0${trunkId}`)
    .digest('hex')
    .slice(0, 16);
}

/** The `sb-trunk` parameter value of a trunk's Contact. */
export function contactToken(key: Uint8Array, trunkId: string): string {
  return `${trunkId}.${mac(key, trunkId)}`;
}

/** The trunk id a `sb-trunk` value names, or null when its MAC is not ours. */
export function trunkOfToken(key: Uint8Array, token: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const id = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const want = Buffer.from(mac(key, id));
  return given.length === want.length && timingSafeEqual(given, want) ? id : null;
}

/** Our Contact for a trunk's binding: where the carrier sends the trunk's calls. */
export function contactOf(
  trunk: SipTrunkTable,
  local: LocalAddress,
  transport: Wire,
  key: Uint8Array,
): string {
  const param = transport === 'UDP' ? '' : `;transport=${transport.toLowerCase()}`;
  const port = localPort(local, transport);
  return `sip:${sipUser(trunk.auth_username)}@${bracket(local.host)}:${port}${param};sb-trunk=${contactToken(key, trunk.id)}`;
}
