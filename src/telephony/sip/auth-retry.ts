// Answering a 401/407 (RFC 3261 22.2, 22.3): the same request again with credentials, a higher
// CSeq and a new branch, so it is a new transaction the proxy or registrar can check.
import { getHeaders } from './message/access.js';
import type { HeaderInit } from './message/build.js';
import { createRequest } from './message/build.js';
import { formatVia } from './message/headers.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { formatUri } from './message/uri.js';
import type { DigestClient } from './digest.js';
import { authHeaderNames, selectChallenge } from './digest.js';

export interface RetryOptions {
  /** Branch for the new transaction's Via. */
  readonly branch: string;
  /** Only answer challenges for this realm (a trunk's configured realm). */
  readonly realm?: string;
}

/**
 * The request to send after a 401 or 407, or undefined when there is nothing we can answer (no
 * supported challenge, or the server says the same credentials failed: a retry loop helps no one).
 */
export function retryWithCredentials(
  req: SipRequest,
  res: SipResponse,
  client: DigestClient,
  options: RetryOptions,
): SipRequest | undefined {
  const names = authHeaderNames(res.status);
  if (!names) return undefined;
  const challenge = selectChallenge(getHeaders(res, names.challenge), options.realm);
  if (!challenge) return undefined;
  const tried = getHeaders(req, names.answer).some((v) => v.includes(`realm="${challenge.realm}"`));
  if (tried && !challenge.stale) return undefined;
  const answer = client.authorize(challenge, { method: req.method, uri: formatUri(req.uri), body: req.body });
  const via = new Map(req.via[0].params);
  via.set('branch', options.branch);
  via.delete('received');
  if (via.has('rport')) via.set('rport', null);
  const headers: HeaderInit[] = [];
  let viaDone = false;
  for (const h of req.headers) {
    if (h.name === 'Via' && !viaDone) {
      viaDone = true;
      headers.push(['Via', formatVia({ ...req.via[0], params: via })]);
    } else if (h.name === 'Via') headers.push(h);
    else if (h.name === 'CSeq') headers.push(['CSeq', `${req.cseq.seq + 1} ${req.method}`]);
    // Credentials for the same realm are replaced; others (another proxy's) stay.
    else if (h.name === names.answer && h.value.includes(`realm="${challenge.realm}"`)) continue;
    else headers.push(h);
  }
  headers.push([names.answer, answer]);
  return createRequest({ method: req.method, uri: req.uri, headers, body: req.body });
}
