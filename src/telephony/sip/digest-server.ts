// SIP digest authentication, server side: stateless challenges (the nonce carries its own issue
// time and an HMAC, so any node holding the secret can check it and it expires by itself) and
// verification of Authorization / Proxy-Authorization, with nonce-count replay checks per node.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { DigestAlgorithm } from './digest.js';
import { computeHa1, computeResponseFromHa1, parseAuthField } from './digest.js';
import { formatUri, parseUri } from './message/uri.js';

export interface DigestServerOptions {
  readonly realm: string;
  /** HMAC key for nonces; the same on every node that must accept another node's nonces. */
  readonly secret: string | Uint8Array;
  readonly clock: Clock;
  /** How long a nonce stays good; after that the answer is 401 with stale=true. Default 5 minutes. */
  readonly nonceTtlMs?: number;
  /** Offered in this order (RFC 8760: SHA-256 before MD5 for older clients). */
  readonly algorithms?: readonly DigestAlgorithm[];
  readonly random?: (bytes: number) => Uint8Array;
  /** How many nonces' counts are remembered for replay checks. */
  readonly maxTrackedNonces?: number;
}

/** The password, or H(A1) for the realm (then the -sess variants cannot be offered). */
export type SecretLookup = (
  username: string,
  realm: string,
) => { password: string } | { ha1: Record<string, string> } | undefined;

export interface VerifyRequest {
  readonly method: string;
  /** The Request-URI as received (formatted), to compare with the credentials' uri. */
  readonly uri: string;
  readonly body?: Uint8Array;
  /** Values of Authorization (or Proxy-Authorization) header fields. */
  readonly credentials: readonly string[];
}

export type VerifyFailure =
  | 'missing'
  | 'malformed'
  | 'wrong-realm'
  | 'bad-nonce'
  | 'stale'
  | 'unknown-user'
  | 'bad-response'
  | 'replay'
  | 'uri-mismatch';

export type VerifyResult =
  | { readonly ok: true; readonly username: string; readonly algorithm: DigestAlgorithm }
  | { readonly ok: false; readonly reason: VerifyFailure; readonly challenge: readonly string[] };

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

/**
 * The digest uri must name the Request-URI (RFC 3261 22.4), but clients spell URIs their own
 * way (needless escapes, case in the scheme); compare meanings, falling back to the text.
 */
function canonicalUri(text: string): string {
  try {
    return formatUri(parseUri(text));
  } catch {
    return text;
  }
}

export class DigestServer {
  private readonly ttl: number;
  private readonly algorithms: readonly DigestAlgorithm[];
  private readonly random: (bytes: number) => Uint8Array;
  private readonly seen = new Map<string, { nc: number; issued: number }>();
  private readonly maxTracked: number;

  constructor(private readonly options: DigestServerOptions) {
    this.ttl = options.nonceTtlMs ?? 5 * 60_000;
    this.algorithms = options.algorithms ?? ['SHA-256', 'MD5'];
    this.random = options.random ?? ((n) => randomBytes(n));
    this.maxTracked = options.maxTrackedNonces ?? 10_000;
  }

  private mac(payload: Uint8Array): Buffer {
    return createHmac('sha256', this.options.secret)
      .update(payload)
      .update(this.options.realm)
      .digest()
      .subarray(0, 16);
  }

  /** nonce = base64url(issue time ms (8 bytes) || 8 random bytes || HMAC(…)[0..16]). */
  issueNonce(): string {
    const payload = Buffer.alloc(16);
    payload.writeBigUInt64BE(BigInt(Math.floor(this.options.clock.now())), 0);
    payload.set(this.random(8).subarray(0, 8), 8);
    return b64u(Buffer.concat([payload, this.mac(payload)]));
  }

  /** The issue time of a nonce we made, or undefined for a forged or mangled one. */
  nonceIssuedAt(nonce: string): number | undefined {
    const raw = Buffer.from(nonce, 'base64url');
    if (raw.length !== 32 || b64u(raw) !== nonce) return undefined;
    const payload = raw.subarray(0, 16);
    if (!timingSafeEqual(raw.subarray(16), this.mac(payload))) return undefined;
    return Number(payload.readBigUInt64BE(0));
  }

  /** WWW-Authenticate / Proxy-Authenticate values, one per algorithm, preferred first. */
  challenge(stale = false): string[] {
    const nonce = this.issueNonce();
    return this.algorithms.map(
      (a) =>
        `Digest realm="${this.options.realm}", nonce="${nonce}", algorithm=${a}, qop="auth"` +
        (stale ? ', stale=TRUE' : ''),
    );
  }

  private fail(reason: VerifyFailure): VerifyResult {
    return { ok: false, reason, challenge: this.challenge(reason === 'stale') };
  }

  verify(req: VerifyRequest, lookup: SecretLookup): VerifyResult {
    // Credentials for other realms or schemes (RFC 4475 regaut01) count as none at all.
    const fields = req.credentials
      .map(parseAuthField)
      .filter((f) => f !== undefined && f.scheme.toLowerCase() === 'digest');
    if (fields.length === 0) return this.fail(req.credentials.length === 0 ? 'missing' : 'malformed');
    const p = fields.find((f) => f!.params.get('realm') === this.options.realm)?.params;
    if (!p) return this.fail('wrong-realm');
    const username = p.get('username');
    const nonce = p.get('nonce');
    const uri = p.get('uri');
    const response = p.get('response')?.toLowerCase();
    const algorithm = this.algorithms.find(
      (a) => a.toLowerCase() === (p.get('algorithm') ?? 'MD5').toLowerCase(),
    );
    const qop = p.get('qop')?.toLowerCase();
    const nc = p.get('nc');
    const cnonce = p.get('cnonce');
    if (!username || !nonce || !uri || !response || !algorithm) return this.fail('malformed');
    if (qop !== undefined && (qop !== 'auth' || !nc || !/^[0-9a-fA-F]{8}$/.test(nc) || !cnonce)) {
      return this.fail('malformed');
    }
    if (canonicalUri(uri) !== canonicalUri(req.uri)) return this.fail('uri-mismatch');
    const issued = this.nonceIssuedAt(nonce);
    if (issued === undefined) return this.fail('bad-nonce');
    const secret = lookup(username, this.options.realm);
    if (!secret) return this.fail('unknown-user');
    const ha1 =
      'password' in secret
        ? computeHa1({
            algorithm,
            username,
            realm: this.options.realm,
            password: secret.password,
            nonce,
            ...(cnonce ? { cnonce } : {}),
          })
        : secret.ha1[algorithm];
    if (ha1 === undefined) return this.fail('unknown-user');
    const expected = computeResponseFromHa1(ha1, {
      algorithm,
      method: req.method,
      uri,
      nonce,
      ...(qop === 'auth' ? { qop: 'auth' as const, nc: nc!, cnonce: cnonce! } : {}),
    });
    const a = Buffer.from(expected);
    const b = Buffer.from(response);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return this.fail('bad-response');
    // Right password, old nonce: stale=TRUE lets the client retry without asking the user again.
    if (this.options.clock.now() - issued > this.ttl) return this.fail('stale');
    if (qop === 'auth' && !this.countIsFresh(nonce, parseInt(nc!, 16), issued)) return this.fail('replay');
    return { ok: true, username, algorithm };
  }

  private countIsFresh(nonce: string, nc: number, issued: number): boolean {
    const prev = this.seen.get(nonce);
    if (prev && nc <= prev.nc) return false;
    if (!prev && this.seen.size >= this.maxTracked) {
      const now = this.options.clock.now();
      for (const [k, v] of this.seen) if (now - v.issued > this.ttl) this.seen.delete(k);
      if (this.seen.size >= this.maxTracked) this.seen.delete(this.seen.keys().next().value!);
    }
    this.seen.set(nonce, { nc, issued });
    return true;
  }
}
