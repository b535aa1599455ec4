// Dialog state (RFC 3261 12) as plain values: created from the request and response that set it
// up, on either side; in-dialog requests built with the route set (loose and strict routing);
// incoming in-dialog requests checked for CSeq order and used for target refresh.
import type { HeaderInit } from '../message/build.js';
import { createRequest } from '../message/build.js';
import type { NameAddr } from '../message/headers.js';
import { formatNameAddr } from '../message/headers.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import type { Uri } from '../message/uri.js';

export interface DialogId {
  readonly callId: string;
  readonly localTag: string;
  readonly remoteTag: string;
}

export interface Dialog {
  readonly id: DialogId;
  readonly state: 'early' | 'confirmed' | 'terminated';
  /** Last CSeq we used; the next request takes localSeq + 1. */
  readonly localSeq: number;
  /** Highest CSeq seen from the peer; undefined until the peer sends a request. */
  readonly remoteSeq?: number;
  /** Our address (without tag) and the peer's, as they appear in From/To. */
  readonly localUri: NameAddr;
  readonly remoteUri: NameAddr;
  /** Where in-dialog requests go: the peer's Contact, refreshed by re-INVITE and UPDATE. */
  readonly remoteTarget: Uri;
  /** Record-Route values in the order our requests must visit them. */
  readonly routeSet: readonly NameAddr[];
  readonly secure: boolean;
}

export type DialogFailure = { readonly ok: false; readonly status: number; readonly reason: string };

function withoutTag(na: NameAddr): NameAddr {
  const params = new Map(na.params);
  params.delete('tag');
  const { tag: _tag, ...rest } = na;
  return { ...rest, params };
}

function isSecure(req: SipRequest): boolean {
  return req.uri.kind === 'sip' && req.uri.scheme === 'sips' && req.via[0].transport === 'TLS';
}

/** UAS side: our 1xx (with To tag) or 2xx to a dialog-creating request (12.1.1). */
export function dialogFromUas(req: SipRequest, res: SipResponse): Dialog | DialogFailure {
  const localTag = res.to.tag;
  const remoteTarget = req.contact[0]?.uri;
  if (localTag === undefined || remoteTarget === undefined)
    return { ok: false, status: 400, reason: 'Missing Contact or tag' };
  return {
    id: { callId: req.callId, localTag, remoteTag: req.from.tag ?? '' },
    state: res.status < 200 ? 'early' : 'confirmed',
    localSeq: 0,
    remoteSeq: req.cseq.seq,
    localUri: withoutTag(req.to),
    remoteUri: withoutTag(req.from),
    remoteTarget,
    routeSet: req.recordRoute,
    secure: isSecure(req),
  };
}

/** UAC side: a 1xx with To tag or a 2xx to our request (12.1.2); the route set is reversed. */
export function dialogFromUac(req: SipRequest, res: SipResponse): Dialog | DialogFailure {
  const remoteTag = res.to.tag;
  const remoteTarget = res.contact[0]?.uri;
  if (remoteTag === undefined || remoteTarget === undefined)
    return { ok: false, status: 400, reason: 'Missing Contact or tag' };
  return {
    id: { callId: req.callId, localTag: req.from.tag ?? '', remoteTag },
    state: res.status < 200 ? 'early' : 'confirmed',
    localSeq: req.cseq.seq,
    localUri: withoutTag(req.from),
    remoteUri: withoutTag(req.to),
    remoteTarget,
    routeSet: [...res.recordRoute].reverse(),
    secure: isSecure(req),
  };
}

export function isDialog(d: Dialog | DialogFailure): d is Dialog {
  return 'id' in d;
}

/** The dialog id a message belongs to, seen from our side. */
export function dialogIdOf(m: SipRequest | SipResponse, weSent: boolean): DialogId {
  const local = weSent ? m.from.tag : m.to.tag;
  const remote = weSent ? m.to.tag : m.from.tag;
  return { callId: m.callId, localTag: local ?? '', remoteTag: remote ?? '' };
}

export function dialogKey(id: DialogId): string {
  return `${id.callId}|${id.localTag}|${id.remoteTag}`;
}

function lr(na: NameAddr): boolean {
  return na.uri.kind === 'sip' && na.uri.params.has('lr');
}

export interface InDialogRequest {
  readonly method: string;
  /** Our top Via, branch included. */
  readonly via: string;
  readonly contact?: string;
  readonly headers?: readonly HeaderInit[];
  readonly body?: Uint8Array | string;
  /** ACK reuses the INVITE's CSeq number (13.2.2.4); everything else takes the next one. */
  readonly cseq?: number;
}

/** Builds the next request in the dialog (12.2.1.1) and the dialog with its CSeq advanced. */
export function requestInDialog(d: Dialog, r: InDialogRequest): { request: SipRequest; dialog: Dialog } {
  const seq = r.cseq ?? d.localSeq + 1;
  let uri: Uri = d.remoteTarget;
  let routes: NameAddr[] = [...d.routeSet];
  if (routes.length > 0 && !lr(routes[0])) {
    // Strict routing (RFC 2543 proxies): the first route becomes the Request-URI, the target goes last.
    uri = routes[0].uri.kind === 'sip' ? { ...routes[0].uri, headers: [] } : routes[0].uri;
    routes = [...routes.slice(1), { uri: d.remoteTarget, params: new Map() }];
  }
  const headers: HeaderInit[] = [
    ['Via', r.via],
    ['Max-Forwards', '70'],
    [
      'From',
      formatNameAddr({ ...d.localUri, params: new Map([...d.localUri.params, ['tag', d.id.localTag]]) }),
    ],
    [
      'To',
      formatNameAddr({ ...d.remoteUri, params: new Map([...d.remoteUri.params, ['tag', d.id.remoteTag]]) }),
    ],
    ['Call-ID', d.id.callId],
    ['CSeq', `${seq} ${r.method}`],
  ];
  for (const route of routes) headers.push(['Route', formatNameAddr(route)]);
  if (r.contact !== undefined) headers.push(['Contact', r.contact]);
  headers.push(...(r.headers ?? []));
  const request = createRequest({
    method: r.method,
    uri,
    headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
  });
  const dialog = r.cseq === undefined ? { ...d, localSeq: seq } : d;
  return { request, dialog };
}

const TARGET_REFRESH = ['INVITE', 'UPDATE'];

/**
 * Checks an incoming in-dialog request (12.2.2): a CSeq lower than the last one is out of order
 * (500); ACK and CANCEL do not move the sequence; re-INVITE and UPDATE refresh the target.
 */
export function receiveInDialog(d: Dialog, req: SipRequest): { ok: true; dialog: Dialog } | DialogFailure {
  if (req.method === 'ACK' || req.method === 'CANCEL') return { ok: true, dialog: d };
  if (d.remoteSeq !== undefined && req.cseq.seq < d.remoteSeq) {
    return { ok: false, status: 500, reason: 'Server Internal Error' };
  }
  let next: Dialog = { ...d, remoteSeq: req.cseq.seq };
  if (req.method === 'BYE') next = { ...next, state: 'terminated' };
  if (TARGET_REFRESH.includes(req.method) && req.contact[0])
    next = { ...next, remoteTarget: req.contact[0].uri };
  return { ok: true, dialog: next };
}

/** A response to one of our in-dialog requests: confirm an early dialog, refresh the target on 2xx. */
export function responseInDialog(d: Dialog, req: SipRequest, res: SipResponse): Dialog {
  let next = d;
  if (res.status >= 200 && res.status < 300) {
    if (d.state === 'early') next = { ...next, state: 'confirmed' };
    if (TARGET_REFRESH.includes(req.method) && res.contact[0])
      next = { ...next, remoteTarget: res.contact[0].uri };
    if (req.method === 'BYE') next = { ...next, state: 'terminated' };
  }
  // 481 and 408 to an in-dialog request end the dialog (12.2.1.2).
  if (res.status === 481 || res.status === 408) next = { ...next, state: 'terminated' };
  return next;
}
