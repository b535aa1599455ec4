// SIP digest authentication, client side (RFC 3261 22, RFC 2617, RFC 8760): reads 401/407
// challenges and answers them with Authorization / Proxy-Authorization for MD5, SHA-256 and their
// -sess variants, qop=auth or auth-int, with a nonce count kept per nonce.
import { createHash, randomBytes } from 'node:crypto';

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
export const DIGEST_ALGORITHMS: readonly DigestAlgorithm[] = ['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'];

/** An auth header field: the scheme and its parameters (names lower-cased, values unquoted). */
export interface AuthField {
  readonly scheme: string;
  readonly params: ReadonlyMap<string, string>;
}

export interface DigestChallenge {
  readonly realm: string;
  readonly nonce: string;
  readonly algorithm: DigestAlgorithm;
  /** qop options offered; empty for an RFC 2069 style challenge. */
  readonly qop: readonly string[];
  readonly opaque?: string;
  readonly stale: boolean;
}

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+/;

/**
 * Parses `Digest realm="x", nonce="y", ...` (also any other scheme). Returns undefined when the
 * field is not auth-scheme followed by comma-separated name=value pairs.
 */
export function parseAuthField(value: string): AuthField | undefined {
  const s = value.trim();
  const scheme = TOKEN.exec(s)?.[0];
  if (!scheme) return undefined;
  const params = new Map<string, string>();
  let i = scheme.length;
  const ws = (): void => {
    while (s[i] === ' ' || s[i] === '\t') i++;
  };
  ws();
  if (i === scheme.length && i < s.length) return undefined;
  while (i < s.length) {
    const name = TOKEN.exec(s.slice(i))?.[0];
    if (!name) return undefined;
    i += name.length;
    ws();
    if (s[i] !== '=') return undefined;
    i++;
    ws();
    let v = '';
    if (s[i] === '"') {
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\') i++;
        v += s[i] ?? '';
        i++;
      }
      if (s[i] !== '"') return undefined;
      i++;
    } else {
      v = TOKEN.exec(s.slice(i))?.[0] ?? '';
      if (!v) return undefined;
      i += v.length;
    }
    params.set(name.toLowerCase(), v);
    ws();
    if (i < s.length) {
      if (s[i] !== ',') return undefined;
      i++;
      ws();
    }
  }
  return { scheme, params };
}

function algorithmOf(name: string | undefined): DigestAlgorithm | undefined {
  if (name === undefined) return 'MD5';
  return DIGEST_ALGORITHMS.find((a) => a.toLowerCase() === name.toLowerCase());
}

/** A Digest challenge we can answer, or undefined (other scheme, unknown algorithm, missing fields). */
export function parseChallenge(value: string): DigestChallenge | undefined {
  const f = parseAuthField(value);
  if (!f || f.scheme.toLowerCase() !== 'digest') return undefined;
  const realm = f.params.get('realm');
  const nonce = f.params.get('nonce');
  const algorithm = algorithmOf(f.params.get('algorithm'));
  if (realm === undefined || nonce === undefined || algorithm === undefined) return undefined;
  const qop = (f.params.get('qop') ?? '')
    .split(',')
    .map((q) => q.trim().toLowerCase())
    .filter((q) => q.length > 0);
  const opaque = f.params.get('opaque');
  const c: DigestChallenge = {
    realm,
    nonce,
    algorithm,
    qop,
    stale: f.params.get('stale')?.toLowerCase() === 'true',
  };
  return opaque === undefined ? c : { ...c, opaque };
}

/**
 * Picks the challenge to answer among several header fields: the topmost one we support, since
 * a server lists its preferred algorithm first (RFC 8760 3).
 */
export function selectChallenge(values: readonly string[], realm?: string): DigestChallenge | undefined {
  for (const v of values) {
    const c = parseChallenge(v);
    if (c && (realm === undefined || c.realm === realm)) return c;
  }
  return undefined;
}

export function hashHex(algorithm: DigestAlgorithm, data: string | Uint8Array): string {
  return createHash(algorithm.startsWith('SHA-256') ? 'sha256' : 'md5')
    .update(data)
    .digest('hex');
}

export interface DigestInput {
  readonly algorithm: DigestAlgorithm;
  readonly username: string;
  readonly realm: string;
  readonly password: string;
  readonly method: string;
  readonly uri: string;
  readonly nonce: string;
  readonly qop?: 'auth' | 'auth-int';
  readonly nc?: string;
  readonly cnonce?: string;
  readonly body?: Uint8Array;
}

/** H(A1): the stored secret; for -sess it binds the nonces too (RFC 2617 3.2.2.2). */
export function computeHa1(
  i: Pick<DigestInput, 'algorithm' | 'username' | 'realm' | 'password' | 'nonce' | 'cnonce'>,
): string {
  const base = hashHex(i.algorithm, `${i.username}:${i.realm}:${i.password}`);
  return i.algorithm.endsWith('-sess') ? hashHex(i.algorithm, `${base}:${i.nonce}:${i.cnonce ?? ''}`) : base;
}

/** The request-digest, from H(A1) so a server may store that instead of the password. */
export function computeResponseFromHa1(
  ha1: string,
  i: Omit<DigestInput, 'username' | 'realm' | 'password'>,
): string {
  const a2 =
    i.qop === 'auth-int'
      ? `${i.method}:${i.uri}:${hashHex(i.algorithm, i.body ?? new Uint8Array(0))}`
      : `${i.method}:${i.uri}`;
  const ha2 = hashHex(i.algorithm, a2);
  return i.qop
    ? hashHex(i.algorithm, `${ha1}:${i.nonce}:${i.nc}:${i.cnonce}:${i.qop}:${ha2}`)
    : hashHex(i.algorithm, `${ha1}:${i.nonce}:${ha2}`);
}

export function computeResponse(i: DigestInput): string {
  return computeResponseFromHa1(computeHa1(i), i);
}

function q(s: string): string {
  return '"' + s.replace(/[\\"]/g, '\\$&').replace(/[\r\n]/g, ' ') + '"';
}

export interface DigestClientOptions {
  readonly username: string;
  readonly password: string;
  /** Client nonce source; injected so tests are deterministic. */
  readonly cnonce?: () => string;
}

export interface AuthRequest {
  readonly method: string;
  /** The Request-URI exactly as it will be sent. */
  readonly uri: string;
  readonly body?: Uint8Array;
}

/** Answers challenges; one per account, since it remembers nonce counts. */
export class DigestClient {
  private readonly counts = new Map<string, number>();
  private readonly cnonce: () => string;

  constructor(private readonly options: DigestClientOptions) {
    this.cnonce = options.cnonce ?? (() => randomBytes(12).toString('hex'));
  }

  /** The Authorization / Proxy-Authorization value answering the challenge for this request. */
  authorize(challenge: DigestChallenge, req: AuthRequest): string {
    const qop = challenge.qop.includes('auth')
      ? 'auth'
      : challenge.qop.includes('auth-int')
        ? 'auth-int'
        : undefined;
    const { username, password } = this.options;
    const parts = [
      `username=${q(username)}`,
      `realm=${q(challenge.realm)}`,
      `nonce=${q(challenge.nonce)}`,
      `uri=${q(req.uri)}`,
    ];
    const base = {
      algorithm: challenge.algorithm,
      realm: challenge.realm,
      nonce: challenge.nonce,
      username,
      password,
      method: req.method,
      uri: req.uri,
    };
    let response: string;
    if (qop) {
      const count = (this.counts.get(challenge.nonce) ?? 0) + 1;
      // Nonce counts are per nonce; a fresh nonce starts again at 1. Bound the map: old nonces die.
      if (this.counts.size > 64 && !this.counts.has(challenge.nonce)) this.counts.clear();
      this.counts.set(challenge.nonce, count);
      const nc = count.toString(16).padStart(8, '0');
      const cnonce = this.cnonce();
      response = computeResponse({ ...base, qop, nc, cnonce, ...(req.body ? { body: req.body } : {}) });
      parts.push(`response=${q(response)}`, `algorithm=${challenge.algorithm}`, `cnonce=${q(cnonce)}`);
      if (challenge.opaque !== undefined) parts.push(`opaque=${q(challenge.opaque)}`);
      parts.push(`qop=${qop}`, `nc=${nc}`);
    } else {
      response = computeResponse(base);
      parts.push(`response=${q(response)}`, `algorithm=${challenge.algorithm}`);
      if (challenge.opaque !== undefined) parts.push(`opaque=${q(challenge.opaque)}`);
    }
    return `Digest ${parts.join(', ')}`;
  }
}

/** Which header carries the answer to a 401 or 407 (RFC 3261 22.2, 22.3). */
export function authHeaderNames(status: number): { challenge: string; answer: string } | undefined {
  if (status === 401) return { challenge: 'WWW-Authenticate', answer: 'Authorization' };
  if (status === 407) return { challenge: 'Proxy-Authenticate', answer: 'Proxy-Authorization' };
  return undefined;
}
