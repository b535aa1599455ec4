// Transaction matching (RFC 3261 17.1.3 and 17.2.3): by the top Via branch when it carries the
// magic cookie, otherwise by the RFC 2543 fields.
import { isRfc3261Branch } from '../message/headers.js';
import type { SipRequest, SipResponse } from '../message/types.js';

/** A client transaction is found by branch and CSeq method (CANCEL has its own). */
export function clientKey(branch: string, method: string): string {
  return `c|${branch}|${method}`;
}

export function clientKeyOfResponse(res: SipResponse): string | undefined {
  const branch = res.via[0]?.branch;
  return branch === undefined ? undefined : clientKey(branch, res.cseq.method);
}

/**
 * A server transaction is found by branch, sent-by and method; ACK belongs to the INVITE it
 * acknowledges. Without the magic cookie, RFC 2543 peers are matched on Call-ID, CSeq number,
 * From tag and the top Via (their ACK for a non-2xx carries the same top Via as the INVITE).
 */
export function serverKey(req: SipRequest, method = req.method === 'ACK' ? 'INVITE' : req.method): string {
  const top = req.via[0];
  const sentBy = `${top.host.toLowerCase()}:${top.port ?? ''}`;
  if (isRfc3261Branch(top.branch)) return `s|${top.branch}|${sentBy}|${method}`;
  return `s2543|${req.callId}|${req.cseq.seq}|${req.from.tag ?? ''}|${sentBy}|${top.branch ?? ''}|${method}`;
}
