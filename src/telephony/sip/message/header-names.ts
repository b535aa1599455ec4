// Header names: compact forms expanded and known names spelled one way, so code compares names
// with ===. Unknown names keep the spelling the peer used (names compare case-insensitively).

const CANONICAL = [
  'Accept',
  'Accept-Contact',
  'Accept-Encoding',
  'Accept-Language',
  'Alert-Info',
  'Allow',
  'Allow-Events',
  'Authentication-Info',
  'Authorization',
  'Call-ID',
  'Call-Info',
  'Contact',
  'Content-Disposition',
  'Content-Encoding',
  'Content-Language',
  'Content-Length',
  'Content-Type',
  'CSeq',
  'Date',
  'Error-Info',
  'Event',
  'Expires',
  'From',
  'Identity',
  'Identity-Info',
  'In-Reply-To',
  'Max-Forwards',
  'MIME-Version',
  'Min-Expires',
  'Min-SE',
  'Organization',
  'P-Asserted-Identity',
  'P-Preferred-Identity',
  'Path',
  'Priority',
  'Privacy',
  'Proxy-Authenticate',
  'Proxy-Authorization',
  'Proxy-Require',
  'RAck',
  'Reason',
  'Record-Route',
  'Refer-To',
  'Referred-By',
  'Reject-Contact',
  'Replaces',
  'Reply-To',
  'Request-Disposition',
  'Require',
  'Retry-After',
  'Route',
  'RSeq',
  'Server',
  'Service-Route',
  'Session-Expires',
  'SIP-ETag',
  'SIP-If-Match',
  'Subject',
  'Subscription-State',
  'Supported',
  'Timestamp',
  'To',
  'Unsupported',
  'User-Agent',
  'Via',
  'Warning',
  'WWW-Authenticate',
];

/** RFC 3261 7.3.3 and the extensions that registered a compact form. */
const COMPACT: Record<string, string> = {
  a: 'Accept-Contact',
  b: 'Referred-By',
  c: 'Content-Type',
  d: 'Request-Disposition',
  e: 'Content-Encoding',
  f: 'From',
  i: 'Call-ID',
  j: 'Reject-Contact',
  k: 'Supported',
  l: 'Content-Length',
  m: 'Contact',
  n: 'Identity-Info',
  o: 'Event',
  r: 'Refer-To',
  s: 'Subject',
  t: 'To',
  u: 'Allow-Events',
  v: 'Via',
  x: 'Session-Expires',
  y: 'Identity',
};

const BY_LOWER = new Map<string, string>();
for (const name of CANONICAL) BY_LOWER.set(name.toLowerCase(), name);
for (const [short, long] of Object.entries(COMPACT)) BY_LOWER.set(short, long);

const SHORT_OF = new Map<string, string>(Object.entries(COMPACT).map(([s, l]) => [l, s]));

/** The one spelling of a header name used throughout the stack. */
export function canonicalName(name: string): string {
  return BY_LOWER.get(name.toLowerCase()) ?? name;
}

/** The compact form of a canonical name, when one exists (to keep UDP datagrams small). */
export function compactName(name: string): string | undefined {
  return SHORT_OF.get(name);
}
