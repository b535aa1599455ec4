// Call transfer with REFER (RFC 3515): reading Refer-To (with an embedded Replaces for attended
// transfer, RFC 3891), and the NOTIFY bodies (message/sipfrag) that report the transfer's progress.
import { getHeader } from '../message/access.js';
import type { NameAddr } from '../message/headers.js';
import { parseNameAddr } from '../message/headers.js';
import type { SipMessage, SipRequest } from '../message/types.js';

export interface ReferTarget {
  readonly target: NameAddr;
  /** Call-ID;to-tag=…;from-tag=… of the call to replace (attended transfer). */
  readonly replaces?: string;
}

/** The Refer-To of a REFER, or undefined when it is missing or unreadable (answer 400). */
export function parseReferTo(req: SipRequest): ReferTarget | undefined {
  const value = getHeader(req, 'Refer-To');
  if (value === undefined) return undefined;
  try {
    const target = parseNameAddr(value, 'Refer-To');
    const replaces =
      target.uri.kind === 'sip'
        ? target.uri.headers.find(([n]) => n.toLowerCase() === 'replaces')?.[1]
        : undefined;
    return replaces === undefined ? { target } : { target, replaces };
  } catch {
    return undefined;
  }
}

/** message/sipfrag body for a NOTIFY: the status line of the referred request's latest response. */
export function sipfrag(status: number, reason: string): string {
  return `SIP/2.0 ${status} ${reason.replace(/[\r\n]/g, ' ')}\r\n`;
}

/** Header fields of a NOTIFY for REFER: the subscription ends with the final response. */
export function referNotifyHeaders(
  referCSeq: number,
  status: number,
  expiresSeconds = 60,
): Array<[string, string]> {
  const state = status >= 200 ? 'terminated;reason=noresource' : `active;expires=${expiresSeconds}`;
  return [
    ['Event', `refer;id=${referCSeq}`],
    ['Subscription-State', state],
    ['Content-Type', 'message/sipfrag;version=2.0'],
  ];
}

/** The status a NOTIFY's sipfrag reports (for us as the referrer), or undefined. */
export function parseSipfragStatus(m: SipMessage): number | undefined {
  const type = getHeader(m, 'Content-Type')?.split(';')[0].trim().toLowerCase();
  if (type !== 'message/sipfrag') return undefined;
  const first = new TextDecoder().decode(m.body).split('\r\n')[0];
  const match = /^SIP\/2\.0 ([1-6]\d\d)(?: |$)/.exec(first);
  return match ? Number(match[1]) : undefined;
}
