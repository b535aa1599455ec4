// Semantic checks a UAS (or proxy) makes on a request that parsed (RFC 3261 8.2 and 16.3, and the
// outcomes RFC 4475 asks for): each failure names the response and the header fields it carries.
import { getHeader, getHeaders, getTokens, splitList } from './access.js';
import type { SipHeader, SipMessage, SipRequest } from './types.js';

export interface RequestPolicy {
  /** Option tags we implement (lower case); anything else in Require gets 420. */
  readonly supported: readonly string[];
  /** Body types we can read; others get 415 with Accept. */
  readonly acceptedContentTypes: readonly string[];
  /** Content codings we can read; "identity" is always fine. */
  readonly acceptedEncodings: readonly string[];
  /** Body type our answer to a method would carry; an Accept header excluding it gets 406. */
  readonly responseBodyTypes: Readonly<Record<string, readonly string[]>>;
  /** A proxy checks Proxy-Require and Max-Forwards; a UAS checks Require. */
  readonly role: 'uas' | 'proxy';
}

export const DEFAULT_POLICY: RequestPolicy = {
  supported: ['replaces', 'timer', 'norefersub', '100rel', 'path', 'outbound'],
  acceptedContentTypes: [
    'application/sdp',
    'multipart/mixed',
    'message/sipfrag',
    'application/dtmf-relay',
    'application/dtmf',
    'text/plain',
  ],
  acceptedEncodings: ['identity'],
  responseBodyTypes: { INVITE: ['application/sdp'] },
  role: 'uas',
};

export type Verdict =
  | { readonly ok: true; readonly date?: number; readonly notes: readonly string[] }
  | {
      readonly ok: false;
      readonly status: number;
      readonly reason: string;
      readonly headers: readonly SipHeader[];
      readonly why: string;
    };

/** Header fields whose grammar allows one value; two leave the request ambiguous. */
const SINGLE_VALUED = [
  'Content-Type',
  'Date',
  'Expires',
  'Min-Expires',
  'MIME-Version',
  'Priority',
  'Reply-To',
  'Retry-After',
  'RAck',
  'RSeq',
  'Session-Expires',
  'Min-SE',
  'Subject',
  'Timestamp',
  'Refer-To',
  'Event',
];

const MAX_DELTA = 0xffffffff;
const DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;

function reject(status: number, reason: string, why: string, headers: SipHeader[] = []): Verdict {
  return { ok: false, status, reason, headers, why };
}

function deltaOk(v: string | null | undefined): boolean {
  return typeof v === 'string' && /^\d{1,10}$/.test(v) && Number(v) <= MAX_DELTA;
}

/** RFC 3261 20.17: rfc1123-date in GMT only; anything else is ignored, never fatal (RFC 4475 baddate). */
export function parseSipDate(value: string): number | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const t = Date.parse(`${m[2]} ${m[3]} ${m[4]} ${m[5]}:${m[6]}:${m[7]} GMT`);
  return Number.isNaN(t) ? undefined : t;
}

function mediaType(value: string): string {
  return value.split(';')[0].trim().toLowerCase();
}

function accepts(ranges: readonly string[], type: string): boolean {
  const [major] = type.split('/');
  return ranges.some((r) => {
    const t = mediaType(r);
    return t === type || t === '*/*' || t === `${major}/*`;
  });
}

export function validateRequest(req: SipRequest, policy: RequestPolicy = DEFAULT_POLICY): Verdict {
  if (req.cseq.method !== req.method) {
    return reject(400, 'Bad Request', `CSeq method ${req.cseq.method} does not match ${req.method}`);
  }
  if (req.uri.kind === 'sip' && req.uri.headers.length > 0) {
    return reject(400, 'Bad Request', 'headers are not allowed in a Request-URI');
  }
  for (const name of SINGLE_VALUED) {
    if (getHeaders(req, name).length > 1) return reject(400, 'Bad Request', `more than one ${name}`);
  }
  for (const name of ['Expires', 'Min-Expires']) {
    const v = getHeader(req, name);
    if (v !== undefined && !deltaOk(v)) return reject(400, 'Bad Request', `${name} is not a delta-seconds`);
  }
  for (const c of req.contact) {
    if (c.params.has('expires') && !deltaOk(c.params.get('expires'))) {
      return reject(400, 'Bad Request', 'Contact expires is not a delta-seconds');
    }
  }
  if (policy.role === 'proxy' && req.maxForwards === 0 && req.method !== 'OPTIONS') {
    return reject(483, 'Too Many Hops', 'Max-Forwards is zero');
  }
  if (req.method !== 'ACK' && req.method !== 'CANCEL') {
    const header = policy.role === 'proxy' ? 'Proxy-Require' : 'Require';
    const unknown = getTokens(req, header).filter((t) => !policy.supported.includes(t.toLowerCase()));
    if (unknown.length > 0) {
      return reject(420, 'Bad Extension', `unsupported ${header}: ${unknown.join(', ')}`, [
        { name: 'Unsupported', value: unknown.join(', ') },
      ]);
    }
  }
  if (req.body.length > 0) {
    const ct = getHeader(req, 'Content-Type');
    const type = ct === undefined ? undefined : mediaType(ct);
    if (type === undefined || !policy.acceptedContentTypes.includes(type)) {
      return reject(415, 'Unsupported Media Type', `cannot read a body of type ${type ?? '(none)'}`, [
        { name: 'Accept', value: policy.acceptedContentTypes.join(', ') },
      ]);
    }
    const codings = getTokens(req, 'Content-Encoding')
      .map((c) => c.toLowerCase())
      .filter((c) => c !== 'identity' && !policy.acceptedEncodings.includes(c));
    if (codings.length > 0) {
      return reject(415, 'Unsupported Media Type', `cannot decode ${codings.join(', ')}`, [
        { name: 'Accept-Encoding', value: policy.acceptedEncodings.join(', ') },
      ]);
    }
  }
  const produces = policy.responseBodyTypes[req.method];
  const acceptLines = getHeaders(req, 'Accept');
  if (produces && acceptLines.length > 0) {
    const ranges = acceptLines.flatMap(splitList);
    if (!produces.some((t) => accepts(ranges, t))) {
      return reject(406, 'Not Acceptable', `Accept excludes ${produces.join(', ')}`);
    }
  }
  const notes: string[] = [];
  const dateValue = getHeader(req, 'Date');
  const date = dateValue === undefined ? undefined : parseSipDate(dateValue);
  if (dateValue !== undefined && date === undefined) notes.push('ignored an invalid Date');
  return date === undefined ? { ok: true, notes } : { ok: true, date, notes };
}

export type ResponseVerdict = { readonly ok: true } | { readonly ok: false; readonly why: string };

function broadcastOrMulticast(host: string): boolean {
  const m = /^(\d+)\.\d+\.\d+\.\d+$/.exec(host);
  if (m) return host === '255.255.255.255' || (Number(m[1]) >= 224 && Number(m[1]) <= 239);
  return /^\[ff/i.test(host);
}

/**
 * Responses are never answered, only kept or dropped. A UAC drops a response with more than one
 * Via (RFC 3261 8.1.3.3); any element drops one that would send traffic to a broadcast or
 * multicast sent-by (RFC 4475 bcast).
 */
export function validateResponse(res: SipMessage, role: 'uac' | 'proxy' = 'uac'): ResponseVerdict {
  if (res.via.some((v) => broadcastOrMulticast(v.host)))
    return { ok: false, why: 'broadcast or multicast Via' };
  if (role === 'uac' && res.via.length > 1) return { ok: false, why: 'more than one Via at a UAC' };
  return { ok: true };
}
