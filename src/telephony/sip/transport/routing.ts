// Where messages go on the wire: the received/rport stamp on an incoming request's top Via
// (RFC 3261 18.2.1, RFC 3581 4) and the destination of a response (RFC 3261 18.2.2, RFC 3581 4),
// plus the next hop of a request from its Route or Request-URI (no DNS here: resolve.ts does RFC 3263).
import { splitList } from '../message/access.js';
import type { Via } from '../message/headers.js';
import { formatVia } from '../message/headers.js';
import type { SipHeader, SipRequest } from '../message/types.js';
import type { Destination, TransportName } from '../transaction/types.js';

export interface Source {
  readonly transport: TransportName;
  readonly address: string;
  readonly port: number;
  readonly connectionId?: string;
}

const RELIABLE: ReadonlySet<TransportName> = new Set(['TCP', 'TLS', 'WS', 'WSS']);

export function isReliable(t: TransportName): boolean {
  return RELIABLE.has(t);
}

function bare(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/**
 * Adds received when the sent-by host is not the packet's source address, and fills an empty
 * rport with the source port (received is then always added, RFC 3581 4). A received the sender
 * wrote itself is replaced by the true source: responses must never follow an address the sender
 * merely claims. (Checks of who sent a request, such as a trunk's allowed_ips, read the packet's
 * source, which the stack hands its transaction user, not this Via.)
 */
export function stampVia(req: SipRequest, source: Source): SipRequest {
  const top = req.via[0];
  const needsReceived =
    bare(top.host) !== source.address ||
    top.rport === true ||
    (top.received !== undefined && bare(top.received) !== bare(source.address));
  if (!needsReceived) return req;
  const params = new Map(top.params);
  // RFC 3261's grammar writes an IPv6 received address bare, without brackets.
  const received = bare(source.address);
  params.set('received', received);
  if (top.rport === true) params.set('rport', String(source.port));
  const stamped: Via = { ...top, params, received, ...(top.rport === true ? { rport: source.port } : {}) };
  let done = false;
  const headers: SipHeader[] = req.headers.map((h) => {
    if (done || h.name !== 'Via') return h;
    done = true;
    const [, ...rest] = splitList(h.value);
    return { name: 'Via', value: [formatVia(stamped), ...rest].join(', ') };
  });
  return { ...req, headers, via: [stamped, ...req.via.slice(1)] };
}

/**
 * Where a response to this request goes: back on the connection for reliable transports; for
 * datagrams to received (at rport if the client asked for it) or else to the sent-by.
 */
export function responseDestination(topVia: Via, source: Source): Destination {
  const transport = source.transport;
  if (isReliable(transport)) {
    return {
      transport,
      host: source.address,
      port: source.port,
      reliable: true,
      ...(source.connectionId !== undefined ? { connectionId: source.connectionId } : {}),
    };
  }
  const defaultPort = topVia.transport === 'TLS' ? 5061 : 5060;
  if (typeof topVia.rport === 'number') {
    return { transport, host: bare(topVia.received ?? source.address), port: topVia.rport, reliable: false };
  }
  if (topVia.received !== undefined) {
    return { transport, host: bare(topVia.received), port: topVia.port ?? defaultPort, reliable: false };
  }
  return { transport, host: bare(topVia.host), port: topVia.port ?? defaultPort, reliable: false };
}

/** The next hop of a request: the first Route if any (loose routing), else the Request-URI. */
export function requestDestination(req: SipRequest): Destination | undefined {
  const target = req.route[0]?.uri ?? req.uri;
  if (target.kind !== 'sip') return undefined;
  const param = target.params.get('transport')?.toUpperCase();
  const transport: TransportName =
    target.scheme === 'sips'
      ? 'TLS'
      : param === 'TCP' || param === 'TLS' || param === 'WS' || param === 'WSS'
        ? param
        : 'UDP';
  const port = target.port ?? (transport === 'TLS' ? 5061 : 5060);
  return {
    transport,
    host: bare(target.params.get('maddr') ?? target.host),
    port,
    reliable: isReliable(transport),
  };
}
