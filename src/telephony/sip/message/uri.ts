// SIP, SIPS and tel URIs (RFC 3261 19.1, RFC 3966), plus any other scheme kept opaque so that
// header fields naming http: or isbn: URIs still parse (RFC 4475 unksm2). Escapes are resolved on
// parse and re-applied on format, so the parsed form holds the meaning, not the spelling.
import { isIPv4, isIPv6 } from 'node:net';
import { SyntaxFault } from './errors.js';
import {
  Cursor,
  DIGITS,
  HEADER_CHARS,
  HOST_CHARS,
  PARAM_CHARS,
  PASSWORD_CHARS,
  USER_CHARS,
  inClass,
} from './scanner.js';

/** Parameters by lower-cased name; null for a parameter written without a value (";lr"). */
export type Params = Map<string, string | null>;

export interface SipUri {
  readonly kind: 'sip';
  readonly scheme: 'sip' | 'sips';
  readonly user?: string;
  readonly password?: string;
  /** As written; IPv6 references keep their brackets. */
  readonly host: string;
  readonly port?: number;
  readonly params: Params;
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

export interface TelUri {
  readonly kind: 'tel';
  readonly scheme: 'tel';
  /** The number as written, visual separators included. */
  readonly number: string;
  readonly params: Params;
}

export interface OtherUri {
  readonly kind: 'other';
  readonly scheme: string;
  readonly opaque: string;
}

export type Uri = SipUri | TelUri | OtherUri;

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const HEX = /^[0-9A-Fa-f]{2}$/;
const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Resolves %HH escapes after checking every other character belongs to the allowed set. */
export function unescapePart(text: string, allowed: Uint8Array, what: string): string {
  let needsDecode = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37) {
      if (!HEX.test(text.slice(i + 1, i + 3))) throw new SyntaxFault(`${what}: bad % escape`);
      needsDecode = true;
      i += 2;
    } else if (!inClass(allowed, c)) {
      throw new SyntaxFault(`${what}: character ${JSON.stringify(text[i])} not allowed`);
    }
  }
  if (!needsDecode) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 37) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i));
  }
  return decoder.decode(new Uint8Array(bytes));
}

/** Escapes every character outside the allowed set (and '%' itself) as UTF-8 %HH. */
export function escapePart(text: string, allowed: Uint8Array): string {
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c !== 37 && inClass(allowed, c)) out += ch;
    else for (const b of encoder.encode(ch)) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function validHostname(h: string): boolean {
  const labels = h.endsWith('.') ? h.slice(0, -1).split('.') : h.split('.');
  for (const l of labels) {
    if (l.length === 0 || l.length > 63) return false;
    if (l[0] === '-' || l[l.length - 1] === '-') return false;
  }
  // The top label starts with a letter; that is what tells a name from a malformed IPv4 address.
  return /^[A-Za-z]/.test(labels[labels.length - 1]);
}

/** Reads host (hostname, IPv4 or [IPv6]) at the cursor. */
export function readHost(cur: Cursor): string {
  if (cur.peek() === 91) {
    const end = cur.s.indexOf(']', cur.pos);
    if (end < 0) cur.fail('unterminated IPv6 reference');
    const host = cur.s.slice(cur.pos, end + 1);
    if (!isIPv6(host.slice(1, -1))) cur.fail('bad IPv6 address');
    cur.pos = end + 1;
    return host;
  }
  const host = cur.take(HOST_CHARS);
  if (host.length === 0) cur.fail('expected a host');
  if (!isIPv4(host) && !validHostname(host)) cur.fail(`bad host ${JSON.stringify(host)}`);
  return host;
}

/** Reads an optional ":port" (0–65535). */
export function readPort(cur: Cursor, allowSpace: boolean): number | undefined {
  if (allowSpace ? !cur.trySep(':') : cur.peek() !== 58) return undefined;
  if (!allowSpace) cur.pos++;
  const port = cur.digits(5);
  if (port > 65535) cur.fail('port out of range');
  return port;
}

function parseUriParams(cur: Cursor, what: string): Params {
  const params: Params = new Map();
  while (cur.peek() === 59) {
    cur.pos++;
    const name = unescapePart(cur.take(PARAM_CHARS_OR_PCT), PARAM_CHARS, what).toLowerCase();
    if (name.length === 0) cur.fail('empty URI parameter');
    let value: string | null = null;
    if (cur.peek() === 61) {
      cur.pos++;
      value = unescapePart(cur.take(PARAM_CHARS_OR_PCT), PARAM_CHARS, what);
      if (value.length === 0) cur.fail('empty URI parameter value');
    }
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

const PARAM_CHARS_OR_PCT = withPercent(PARAM_CHARS);
const HEADER_CHARS_OR_PCT = withPercent(HEADER_CHARS);

function withPercent(t: Uint8Array): Uint8Array {
  const c = new Uint8Array(t);
  c[37] = 1;
  return c;
}

function parseSipUri(scheme: 'sip' | 'sips', rest: string, what: string): SipUri {
  let user: string | undefined;
  let password: string | undefined;
  let hostPart = rest;
  const at = rest.indexOf('@');
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    hostPart = rest.slice(at + 1);
    const colon = userinfo.indexOf(':');
    const rawUser = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
    if (rawUser.length === 0) throw new SyntaxFault(`${what}: empty user`);
    user = unescapePart(rawUser, USER_CHARS, what);
    if (colon >= 0) password = unescapePart(userinfo.slice(colon + 1), PASSWORD_CHARS, what);
  }
  const cur = new Cursor(hostPart, what);
  const host = readHost(cur);
  const port = readPort(cur, false);
  const params = parseUriParams(cur, what);
  const headers: Array<readonly [string, string]> = [];
  if (cur.peek() === 63) {
    do {
      cur.pos++;
      const name = unescapePart(cur.take(HEADER_CHARS_OR_PCT), HEADER_CHARS, what);
      if (name.length === 0) cur.fail('empty URI header name');
      if (cur.peek() !== 61) cur.fail('URI header without "="');
      cur.pos++;
      headers.push([name, unescapePart(cur.take(HEADER_CHARS_OR_PCT), HEADER_CHARS, what)]);
    } while (cur.peek() === 38);
  }
  if (!cur.done) cur.fail('unexpected character in URI');
  const uri: SipUri = { kind: 'sip', scheme, host, params, headers };
  return Object.assign(
    uri,
    user !== undefined ? { user } : {},
    password !== undefined ? { password } : {},
    port !== undefined ? { port } : {},
  );
}

const TEL_NUMBER = /^(\+[0-9().-]*[0-9][0-9().-]*|[0-9A-Fa-f*#().-]*[0-9A-Fa-f*#][0-9A-Fa-f*#().-]*)$/;

function parseTelUri(rest: string, what: string): TelUri {
  const semi = rest.indexOf(';');
  const number = semi >= 0 ? rest.slice(0, semi) : rest;
  if (!TEL_NUMBER.test(number)) throw new SyntaxFault(`${what}: bad tel number`);
  const cur = new Cursor(rest, what);
  cur.pos = number.length;
  const params = parseUriParams(cur, what);
  if (!cur.done) cur.fail('unexpected character in tel URI');
  return { kind: 'tel', scheme: 'tel', number, params };
}

/** Parses a complete URI. Unknown schemes are kept opaque; '<', '>', '"', whitespace and controls are refused. */
export function parseUri(text: string, what = 'URI'): Uri {
  const m = SCHEME.exec(text);
  if (!m) throw new SyntaxFault(`${what}: missing scheme`);
  const scheme = m[1].toLowerCase();
  const rest = text.slice(m[0].length);
  if (scheme === 'sip' || scheme === 'sips') return parseSipUri(scheme, rest, what);
  if (scheme === 'tel') return parseTelUri(rest, what);
  // eslint-disable-next-line no-control-regex
  if (rest.length === 0 || /[\x00-\x20\x7f<>"]/.test(rest)) throw new SyntaxFault(`${what}: bad URI`);
  return { kind: 'other', scheme, opaque: rest };
}

/** True for digits only, used by callers that need a plain decimal field. */
export function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (!inClass(DIGITS, s.charCodeAt(i))) return false;
  return true;
}

function formatUriParams(params: Params): string {
  let out = '';
  for (const [name, value] of params) {
    out += ';' + escapePart(name, PARAM_CHARS);
    if (value !== null) out += '=' + escapePart(value, PARAM_CHARS);
  }
  return out;
}

export function formatUri(uri: Uri): string {
  if (uri.kind === 'other') return `${uri.scheme}:${uri.opaque}`;
  if (uri.kind === 'tel') return `tel:${uri.number}${formatUriParams(uri.params)}`;
  let out = uri.scheme + ':';
  if (uri.user !== undefined) {
    out += escapePart(uri.user, USER_CHARS);
    if (uri.password !== undefined) out += ':' + escapePart(uri.password, PASSWORD_CHARS);
    out += '@';
  }
  out += uri.host;
  if (uri.port !== undefined) out += ':' + uri.port;
  out += formatUriParams(uri.params);
  if (uri.headers.length > 0) {
    out +=
      '?' +
      uri.headers.map(([n, v]) => escapePart(n, HEADER_CHARS) + '=' + escapePart(v, HEADER_CHARS)).join('&');
  }
  return out;
}
