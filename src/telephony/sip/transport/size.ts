// Message size and the choice of transport (RFC 3261 18.1.1): a request within 200 bytes of the
// path MTU, or over 1300 bytes when the MTU is unknown, must not go over UDP but over a
// congestion-controlled transport (TCP), with the top Via saying so. If the TCP attempt fails, the
// request goes out over UDP after all. Also the top-Via rewrite a resend needs (new branch for
// each new transaction, RFC 3263 4.3; new transport).
import { splitList } from '../message/access.js';
import type { HeaderInit } from '../message/build.js';
import { createRequest } from '../message/build.js';
import { formatVia } from '../message/headers.js';
import { serialize } from '../message/serialize.js';
import type { SipRequest } from '../message/types.js';
import type { Destination } from '../transaction/types.js';

/** Ethernet's MTU, assumed when the path MTU is not known. */
export const DEFAULT_PATH_MTU = 1500;
/** How close to the MTU a request may come (RFC 3261 18.1.1): 200 bytes for IP and UDP headers. */
export const MTU_MARGIN = 200;

/** True when the request may go over UDP as it is: at most MTU - 200 bytes (1300 by default). */
export function fitsDatagram(req: SipRequest, pathMtu = DEFAULT_PATH_MTU): boolean {
  return serialize(req).length <= pathMtu - MTU_MARGIN;
}

/**
 * The same request with its top Via changed: another transport (UDP -> TCP for size), a new branch
 * (a new transaction), received and an rport value dropped (they are the next hop's to add).
 */
export function withTopVia(req: SipRequest, change: { transport?: string; branch?: string }): SipRequest {
  const top = req.via[0];
  const params = new Map(top.params);
  if (change.branch !== undefined) params.set('branch', change.branch);
  params.delete('received');
  if (params.has('rport')) params.set('rport', null);
  const via = formatVia({ ...top, transport: change.transport ?? top.transport, params });
  const headers: HeaderInit[] = [];
  let done = false;
  for (const h of req.headers) {
    if (h.name === 'Via' && !done) {
      done = true;
      const [, ...rest] = splitList(h.value);
      headers.push(['Via', [via, ...rest].join(', ')]);
    } else headers.push(h);
  }
  return createRequest({ method: req.method, uri: req.uri, headers, body: req.body });
}

/**
 * Where a request bound for `to` goes when size rules it out of UDP: TCP to the same host and
 * port, Via changed to match; undefined when it may stay (not UDP, or small enough).
 */
export function streamForSize(
  req: SipRequest,
  to: Destination,
  pathMtu = DEFAULT_PATH_MTU,
): { request: SipRequest; destination: Destination } | undefined {
  if (to.transport !== 'UDP' || fitsDatagram(req, pathMtu)) return undefined;
  return {
    request: withTopVia(req, { transport: 'TCP' }),
    destination: { transport: 'TCP', host: to.host, port: to.port, reliable: true },
  };
}
