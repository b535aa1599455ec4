// What a registrar's answer says about time: the expiry it granted our Contact (RFC 3261 10.2.4:
// the Contact's expires parameter, else the Expires header, else what we asked for) and how long a
// 503 asks us to wait (Retry-After, 20.33).
import { getHeader, getHeaderList } from '../message/access.js';
import { parseNameAddr } from '../message/headers.js';
import type { SipResponse } from '../message/types.js';
import { formatUri, parseUri } from '../message/uri.js';

const MAX_SECONDS = 2 ** 31 - 1;

function seconds(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || !/^\d{1,10}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n <= MAX_SECONDS ? n : undefined;
}

/** Same URI for a registrar's purposes: scheme, user, host, port and our sb-trunk parameter. */
function sameContact(a: string, b: string): boolean {
  try {
    const x = parseUri(a);
    const y = parseUri(b);
    if (x.kind !== 'sip' || y.kind !== 'sip') return formatUri(x) === formatUri(y);
    return (
      x.user === y.user &&
      x.host.toLowerCase() === y.host.toLowerCase() &&
      (x.port ?? 5060) === (y.port ?? 5060) &&
      x.params.get('sb-trunk') === y.params.get('sb-trunk')
    );
  } catch {
    return false;
  }
}

/** Seconds the registrar granted `contact`; `asked` when the answer does not say. */
export function expiryOf(res: SipResponse, contact: string, asked: number): number {
  for (const value of getHeaderList(res, 'Contact')) {
    let na;
    try {
      na = parseNameAddr(value, 'Contact');
    } catch {
      continue;
    }
    if (!sameContact(formatUri(na.uri), contact)) continue;
    const own = seconds(na.params.get('expires'));
    if (own !== undefined) return own;
  }
  return seconds(getHeader(res, 'Expires')) ?? asked;
}

/** A 503's Retry-After in ms (capped at an hour), or undefined. */
export function retryAfterMs(res: SipResponse): number | undefined {
  if (res.status !== 503) return undefined;
  const value = getHeader(res, 'Retry-After')?.split(/[;(\s]/)[0];
  const s = seconds(value);
  return s === undefined ? undefined : Math.min(s, 3600) * 1000;
}
