// Grammar of the header fields the stack reads: generic parameters, name-addr / addr-spec (From,
// To, Contact, Route, Record-Route), Via, CSeq, Call-ID and plain scalars, each with a formatter
// that writes the canonical form back.
import { isIP } from 'node:net';
import type { Params, Uri } from './uri.js';
import { formatUri, parseUri, readHost, readPort } from './uri.js';
import { Cursor, TOKEN, WORD, inClass, isToken, quote } from './scanner.js';

const RECEIVED = new Uint8Array(128);
for (const ch of '0123456789abcdefABCDEF:.') RECEIVED[ch.charCodeAt(0)] = 1;

export interface NameAddr {
  readonly displayName?: string;
  readonly uri: Uri;
  /** Header parameters (after the URI), values as written: quoted strings keep their quotes. */
  readonly params: Params;
  /** The tag parameter, when present (From, To). */
  readonly tag?: string;
}

export interface Via {
  readonly protocol: string;
  readonly version: string;
  /** Upper-cased: UDP, TCP, TLS, SCTP, WS, WSS or whatever the peer named. */
  readonly transport: string;
  readonly host: string;
  readonly port?: number;
  readonly params: Params;
  readonly branch?: string;
  readonly received?: string;
  /** RFC 3581: true when present without a value (a request asking for it), else the port. */
  readonly rport?: number | true;
}

export interface CSeq {
  readonly seq: number;
  readonly method: string;
}

/** Reads *( SEMI generic-param ); gen-value = token / host / quoted-string. */
export function readParams(cur: Cursor): Params {
  const params: Params = new Map();
  while (cur.trySep(';')) {
    const name = cur.token().toLowerCase();
    let value: string | null = null;
    if (cur.trySep('=')) {
      const c = cur.peek();
      if (c === 34) value = cur.quotedRaw();
      else if (c === 91) value = readHost(cur);
      // received may hold a bare IPv6 address (RFC 3261 20.42), which is not a token.
      else if (name === 'received') value = cur.take(RECEIVED) || cur.token();
      else value = cur.token();
    }
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

export function formatParams(params: Params): string {
  let out = '';
  for (const [name, value] of params) out += value === null ? `;${name}` : `;${name}=${value}`;
  return out;
}

/**
 * Reads name-addr or (when allowed) addr-spec. In addr-spec form the URI ends at the first ';',
 * ',' or whitespace, and must not contain '?' (RFC 3261 20: such URIs need angle brackets).
 */
export function readNameAddr(cur: Cursor, allowAddrSpec: boolean): NameAddr {
  cur.skipWs();
  let displayName: string | undefined;
  if (cur.peek() === 34) {
    displayName = cur.quoted();
    cur.skipWs();
  } else if (cur.peek() !== 60) {
    const save = cur.pos;
    const words: string[] = [];
    while (inClass(TOKEN, cur.peek())) {
      words.push(cur.token());
      cur.skipWs();
    }
    if (words.length > 0 && cur.peek() === 60) displayName = words.join(' ');
    else cur.pos = save;
  }
  let uri: Uri;
  if (cur.peek() === 60) {
    const end = cur.s.indexOf('>', cur.pos);
    if (end < 0) cur.fail('missing ">"');
    const text = cur.s.slice(cur.pos + 1, end);
    uri = parseUri(text, cur.what);
    cur.pos = end + 1;
  } else {
    if (!allowAddrSpec) cur.fail('expected "<"');
    const start = cur.pos;
    while (!cur.done && !/[;, \t]/.test(cur.s[cur.pos])) cur.pos++;
    const text = cur.s.slice(start, cur.pos);
    if (text.includes('?')) cur.fail('addr-spec with "?" must be enclosed in <>');
    uri = parseUri(text, cur.what);
  }
  const params = readParams(cur);
  const tag = params.get('tag');
  const na: NameAddr = { uri, params };
  return Object.assign(
    na,
    displayName !== undefined ? { displayName } : {},
    typeof tag === 'string' ? { tag } : {},
  );
}

/** One name-addr or addr-spec filling the whole value (From, To). */
export function parseNameAddr(value: string, what: string): NameAddr {
  const cur = new Cursor(value, what);
  const na = readNameAddr(cur, true);
  cur.skipWs();
  if (!cur.done) cur.fail('unexpected text after address');
  return na;
}

/** Comma-separated list of name-addr (Route, Record-Route) or name-addr / addr-spec (Contact). */
export function parseNameAddrList(value: string, what: string, allowAddrSpec: boolean): NameAddr[] {
  const cur = new Cursor(value, what);
  const out: NameAddr[] = [readNameAddr(cur, allowAddrSpec)];
  while (cur.trySep(',')) out.push(readNameAddr(cur, allowAddrSpec));
  cur.skipWs();
  if (!cur.done) cur.fail('unexpected text after address');
  return out;
}

export function formatNameAddr(na: Pick<NameAddr, 'displayName' | 'uri' | 'params'>): string {
  const dn = na.displayName !== undefined ? quote(na.displayName) + ' ' : '';
  return `${dn}<${formatUri(na.uri)}>${formatParams(na.params)}`;
}

function readVia(cur: Cursor): Via {
  cur.skipWs();
  const protocol = cur.token();
  cur.sep('/');
  const version = cur.token();
  cur.sep('/');
  const transport = cur.token().toUpperCase();
  if (!cur.skipWs()) cur.fail('expected whitespace before sent-by');
  const host = readHost(cur);
  const port = readPort(cur, true);
  const params = readParams(cur);
  const via: Via = { protocol, version, transport, host, params };
  const extra: Partial<{ -readonly [K in keyof Via]: Via[K] }> = {};
  if (port !== undefined) extra.port = port;
  const branch = params.get('branch');
  if (branch !== undefined) {
    if (branch === null || branch.startsWith('"')) cur.fail('bad branch');
    extra.branch = branch;
  }
  const received = params.get('received');
  if (received !== undefined) {
    const addr = received?.replace(/^\[(.*)\]$/, '$1') ?? '';
    if (!isIP(addr)) cur.fail('received is not an IP address');
    extra.received = received!;
  }
  const rport = params.get('rport');
  if (rport !== undefined) {
    if (rport === null) extra.rport = true;
    else if (/^\d{1,5}$/.test(rport) && Number(rport) <= 65535) extra.rport = Number(rport);
    else cur.fail('bad rport');
  }
  const ttl = params.get('ttl');
  if (ttl !== undefined && !(ttl !== null && /^\d{1,3}$/.test(ttl) && Number(ttl) <= 255))
    cur.fail('bad ttl');
  return Object.assign(via, extra);
}

/** A Via header value: one or more comma-separated via-parms. */
export function parseViaList(value: string, what = 'Via'): Via[] {
  const cur = new Cursor(value, what);
  const out: Via[] = [readVia(cur)];
  while (cur.trySep(',')) out.push(readVia(cur));
  cur.skipWs();
  if (!cur.done) cur.fail('unexpected text after via-parm');
  return out;
}

export function formatVia(v: Omit<Via, 'branch' | 'received' | 'rport'>): string {
  const port = v.port !== undefined ? `:${v.port}` : '';
  return `${v.protocol}/${v.version}/${v.transport} ${v.host}${port}${formatParams(v.params)}`;
}

/** The RFC 3261 magic cookie alone (RFC 4475 badbranch) does not make a usable transaction id. */
export function isRfc3261Branch(branch: string | undefined): boolean {
  return branch !== undefined && branch.startsWith('z9hG4bK') && branch.length > 7;
}

export function parseCSeq(value: string): CSeq {
  const cur = new Cursor(value, 'CSeq');
  const seq = cur.digits(10);
  if (seq > 0xffffffff) cur.fail('sequence number exceeds 2**32-1');
  if (!cur.skipWs()) cur.fail('expected whitespace before method');
  const method = cur.token();
  if (!cur.done) cur.fail('unexpected text after method');
  return { seq, method };
}

export function parseCallId(value: string): string {
  const cur = new Cursor(value, 'Call-ID');
  if (cur.take(WORD).length === 0) cur.fail('empty Call-ID');
  if (cur.peek() === 64) {
    cur.pos++;
    if (cur.take(WORD).length === 0) cur.fail('empty word after "@"');
  }
  if (!cur.done) cur.fail('bad character');
  return value;
}

/** A header holding only 1*DIGIT, bounded. */
export function parseScalar(value: string, what: string, max: number): number {
  const cur = new Cursor(value, what);
  const n = cur.digits(10);
  if (!cur.done) cur.fail('not a number');
  if (n > max) cur.fail(`value exceeds ${max}`);
  return n;
}

/** Comma-separated tokens (Require, Supported, Allow…); empty elements are an error. */
export function parseTokenList(value: string, what: string): string[] {
  if (value.trim() === '') return [];
  const items = value.split(',').map((s) => s.trim());
  for (const item of items) if (!isToken(item)) throw new Cursor(value, what).fail('bad token list');
  return items;
}
