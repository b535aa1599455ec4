// Which URLs an endpoint may be saved with. https is required, except that plain http is accepted
// when the host (a literal address, or every address its name resolves to now) lies inside
// WEBHOOK_ALLOWED_CIDRS: a receiver on the operator's own network (or 127.0.0.1 in tests) need not
// run TLS. Literal addresses in refused ranges are rejected here already, for a clear 422; names
// are checked again on every connection by the SSRF guard, which is what actually protects.
import net from 'node:net';
import type { AddressPolicy } from '../../events/address-policy.js';
import type { Resolver } from '../../events/ssrf-guard.js';

/** Null when the URL may be used, else the message for `errors.url`. */
export async function checkEndpointUrl(
  raw: string,
  policy: AddressPolicy,
  resolver: Resolver,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials; authenticate with the signature';
  if (url.hash) return 'must not have a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const refused = policy.refusal(host);
    if (refused)
      return `points to a ${refused} address, which webhooks may not reach (see WEBHOOK_ALLOWED_CIDRS)`;
    if (url.protocol === 'http:' && !policy.isAllowedByOperator(host)) {
      return 'must use https (http only for hosts inside WEBHOOK_ALLOWED_CIDRS)';
    }
    return null;
  }
  if (url.protocol === 'https:') return null;
  let addresses: string[];
  try {
    addresses = (await resolver(host)).map((a) => a.address);
  } catch {
    addresses = [];
  }
  if (addresses.length > 0 && addresses.every((a) => policy.isAllowedByOperator(a))) return null;
  return 'must use https (http only for hosts inside WEBHOOK_ALLOWED_CIDRS)';
}
