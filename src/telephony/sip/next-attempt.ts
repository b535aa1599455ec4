// The same request again as a new transaction, after a final response that says how to do better
// (RFC 3261 8.1.3.5): a 401/407 answered with credentials (auth-retry.ts), a 422 answered with a
// longer session interval (RFC 4028 6, extensions/session-timer.ts). The copy keeps Call-ID, From
// (tag included), To and the body, takes the next CSeq and a new branch, so proxies and the far end
// see a new transaction of the same call attempt. And the CANCEL of a request (RFC 3261 9.1).
import type { HeaderInit } from './message/build.js';
import { createRequest } from './message/build.js';
import { formatVia } from './message/headers.js';
import type { SipHeader, SipRequest } from './message/types.js';

export interface AttemptEdit {
  /** Header fields of the earlier attempt to leave out. */
  readonly drop?: (header: SipHeader) => boolean;
  /** Header fields to add at the end. */
  readonly add?: readonly HeaderInit[];
}

/** `req` as its next attempt: new branch on the top Via (no `received`, `rport` asked afresh), CSeq + 1. */
export function nextAttempt(req: SipRequest, branch: string, edit: AttemptEdit = {}): SipRequest {
  const via = new Map(req.via[0].params);
  via.set('branch', branch);
  via.delete('received');
  if (via.has('rport')) via.set('rport', null);
  const headers: HeaderInit[] = [];
  let viaDone = false;
  for (const h of req.headers) {
    if (h.name === 'Via' && !viaDone) {
      viaDone = true;
      headers.push(['Via', formatVia({ ...req.via[0], params: via })]);
    } else if (h.name === 'CSeq') headers.push(['CSeq', `${req.cseq.seq + 1} ${req.method}`]);
    else if (h.name !== 'Via' && edit.drop?.(h)) continue;
    else headers.push(h);
  }
  headers.push(...(edit.add ?? []));
  return createRequest({ method: req.method, uri: req.uri, headers, body: req.body });
}

/** The CANCEL for a request we sent (RFC 3261 9.1): its top Via, Route, From, To, Call-ID and CSeq number. */
export function cancelOf(req: SipRequest): SipRequest {
  const pick = (name: string) => req.headers.filter((h) => h.name === name);
  const headers: HeaderInit[] = [
    ['Via', formatVia(req.via[0])],
    ['Max-Forwards', '70'],
    ...pick('Route'),
    ...pick('From'),
    ...pick('To'),
    ...pick('Call-ID'),
    ['CSeq', `${req.cseq.seq} CANCEL`],
  ];
  return createRequest({ method: 'CANCEL', uri: req.uri, headers });
}
