// Join tokens: a signed JWT (HS256, server key) bound to one session, its workspace and an expiry.
// The realtime socket accepts a session only with a token whose subject and workspace match.
import { SignJWT, jwtVerify } from 'jose';

const AUDIENCE = 'switchboard:session-join';

export interface JoinClaims {
  sessionId: string;
  workspaceId: string;
  expiresAt: number;
}

/**
 * `issuedAt` (epoch ms) is when the token is minted: `iat` must not lie in the future, or other
 * JWT libraries a customer's backend may use to inspect the token would refuse it.
 */
export async function mintJoinToken(
  key: Uint8Array,
  claims: JoinClaims & { issuedAt: number },
): Promise<string> {
  return new SignJWT({ ws: claims.workspaceId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sessionId)
    .setAudience(AUDIENCE)
    .setIssuedAt(Math.floor(claims.issuedAt / 1000))
    .setExpirationTime(Math.floor(claims.expiresAt / 1000))
    .sign(key);
}

/** Returns the claims, or null for a forged, expired or foreign token. */
export async function verifyJoinToken(
  key: Uint8Array,
  token: string,
  nowMs: number,
): Promise<JoinClaims | null> {
  // No need to tell an expired token from a forged one here: that takes a second verification.
  return verifyAt(key, token, nowMs);
}

/**
 * The claims, or why there are none: `expired` for a genuine token past its expiry (a browser can
 * say "this link has expired, ask for a new one"), `invalid` for anything else.
 */
export async function checkJoinToken(
  key: Uint8Array,
  token: string,
  nowMs: number,
): Promise<{ claims: JoinClaims } | { error: 'expired' | 'invalid' }> {
  const claims = await verifyAt(key, token, nowMs);
  if (claims) return { claims };
  // Only a token that verifies at its own expiry is called expired; a forged one stays invalid.
  const exp = expiryOf(token);
  if (exp !== null && exp <= nowMs && (await verifyAt(key, token, exp - 1000))) return { error: 'expired' };
  return { error: 'invalid' };
}

function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

async function verifyAt(key: Uint8Array, token: string, nowMs: number): Promise<JoinClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, {
      audience: AUDIENCE,
      algorithms: ['HS256'],
      currentDate: new Date(nowMs),
    });
    if (typeof payload.sub !== 'string' || typeof payload.ws !== 'string' || typeof payload.exp !== 'number')
      return null;
    return { sessionId: payload.sub, workspaceId: payload.ws, expiresAt: payload.exp * 1000 };
  } catch {
    return null;
  }
}
