// Answering a 401/407 (RFC 3261 22.2, 22.3): the same request again with credentials, a higher
// CSeq and a new branch, so it is a new transaction the proxy or registrar can check. A later
// attempt of a request we already answered a challenge for (after a 422, say) carries the answer
// again, recomputed with the next nonce count, as a server that checks counts expects.
import { getHeaders } from './message/access.js';
import { createRequest } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { formatUri } from './message/uri.js';
import type { DigestClient } from './digest.js';
import { authHeaderNames, selectChallenge } from './digest.js';
import { nextAttempt } from './next-attempt.js';

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
  return nextAttempt(req, options.branch, {
    // Credentials for the same realm are replaced; others (another proxy's) stay.
    drop: (h) => h.name === names.answer && h.value.includes(`realm="${challenge.realm}"`),
    add: [[names.answer, answer]],
  });
}

/**
 * `req` (already a new attempt: branch and CSeq set) with the answer to `challenged`'s challenge
 * computed afresh: a digest with qop counts nonce uses, and repeating the last one is a replay.
 * Unchanged when there is no challenge we answer in `challenged`.
 */
export function withFreshCredentials(
  req: SipRequest,
  challenged: SipResponse,
  client: DigestClient,
  realm?: string,
): SipRequest {
  const names = authHeaderNames(challenged.status);
  const challenge = names && selectChallenge(getHeaders(challenged, names.challenge), realm);
  if (!names || !challenge) return req;
  const answer = client.authorize(challenge, { method: req.method, uri: formatUri(req.uri), body: req.body });
  const mine = (h: { name: string; value: string }) =>
    h.name === names.answer && h.value.includes(`realm="${challenge.realm}"`);
  return createRequest({
    method: req.method,
    uri: req.uri,
    headers: [...req.headers.filter((h) => !mine(h)), [names.answer, answer]],
    body: req.body,
  });
}
