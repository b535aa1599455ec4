// Turns a start line and header fields into a typed message, reading the header fields that every
// element needs. Shared by the parser and the builders, so a built message and a parsed one agree.
import { SyntaxFault } from './errors.js';
import type { NameAddr, Via } from './headers.js';
import {
  parseCSeq,
  parseCallId,
  parseNameAddr,
  parseNameAddrList,
  parseScalar,
  parseViaList,
} from './headers.js';
import type { SipLimits } from './limits.js';
import type { SipHeader, SipMessage } from './types.js';
import type { Uri } from './uri.js';

export type StartLine =
  | { readonly kind: 'request'; readonly method: string; readonly uri: Uri }
  | { readonly kind: 'response'; readonly status: number; readonly reason: string };

/** Header fields that may appear once only; a second one leaves the message meaning two things. */
const SINGLE = ['From', 'To', 'Call-ID', 'CSeq', 'Max-Forwards', 'Content-Length'] as const;

export function assemble(
  start: StartLine,
  headers: readonly SipHeader[],
  body: Uint8Array,
  limits: SipLimits,
): SipMessage {
  const single = new Map<string, string>();
  const via: Via[] = [];
  const contact: NameAddr[] = [];
  const route: NameAddr[] = [];
  const recordRoute: NameAddr[] = [];
  let contactWildcard = false;
  let contactLines = 0;
  for (const h of headers) {
    switch (h.name) {
      case 'Via':
        via.push(...parseViaList(h.value));
        if (via.length > limits.maxListElements) throw new SyntaxFault('too many Via values');
        break;
      case 'Contact':
        contactLines++;
        if (h.value === '*') contactWildcard = true;
        else contact.push(...parseNameAddrList(h.value, 'Contact', true));
        if (contact.length > limits.maxListElements) throw new SyntaxFault('too many Contact values');
        break;
      case 'Route':
        route.push(...parseNameAddrList(h.value, 'Route', false));
        if (route.length > limits.maxListElements) throw new SyntaxFault('too many Route values');
        break;
      case 'Record-Route':
        recordRoute.push(...parseNameAddrList(h.value, 'Record-Route', false));
        if (recordRoute.length > limits.maxListElements)
          throw new SyntaxFault('too many Record-Route values');
        break;
      default:
        if ((SINGLE as readonly string[]).includes(h.name)) {
          if (single.has(h.name)) throw new SyntaxFault(`more than one ${h.name}`);
          single.set(h.name, h.value);
        }
    }
  }
  if (contactWildcard && contactLines > 1) throw new SyntaxFault('Contact "*" mixed with addresses');
  if (via.length === 0) throw new SyntaxFault('missing Via');
  for (const name of ['From', 'To', 'Call-ID', 'CSeq']) {
    if (!single.has(name)) throw new SyntaxFault(`missing ${name}`);
  }
  const from = parseNameAddr(single.get('From')!, 'From');
  const to = parseNameAddr(single.get('To')!, 'To');
  const callId = parseCallId(single.get('Call-ID')!);
  const cseq = parseCSeq(single.get('CSeq')!);
  const mf = single.get('Max-Forwards');
  const cl = single.get('Content-Length');
  const maxForwards = mf !== undefined ? parseScalar(mf, 'Max-Forwards', 255) : undefined;
  let contentLength: number | undefined;
  if (cl !== undefined) {
    contentLength = parseScalar(cl, 'Content-Length', Number.MAX_SAFE_INTEGER);
    if (contentLength > limits.maxMessageBytes) {
      throw new SyntaxFault('Content-Length exceeds the message size limit', 513, 'Message Too Large');
    }
  }
  const common = {
    version: 'SIP/2.0' as const,
    headers,
    body,
    via,
    from,
    to,
    callId,
    cseq,
    contact,
    contactWildcard,
    route,
    recordRoute,
    ...(maxForwards !== undefined ? { maxForwards } : {}),
    ...(contentLength !== undefined ? { contentLength } : {}),
  };
  return start.kind === 'request'
    ? { kind: 'request', method: start.method, uri: start.uri, ...common }
    : { kind: 'response', status: start.status, reason: start.reason, ...common };
}
