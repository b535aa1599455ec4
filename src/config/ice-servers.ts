// The ICE servers a browser is handed for one web session: the fixed ones of WEBRTC_ICE_SERVERS,
// and, when a TURN secret is configured, a TURN server with a credential minted for this session
// alone by the TURN REST API scheme that coturn checks with `use-auth-secret` and
// `static-auth-secret`:
//
//   username   = "<expiry, unix seconds>:<session id>"
//   credential = base64(HMAC-SHA1(WEBRTC_TURN_SECRET, username))
//
// coturn recomputes the credential from the username and refuses it once the expiry has passed,
// so nothing is stored and a credential read out of a browser stops working on its own.
import { createHmac } from 'node:crypto';
import type { IceServerConfig, TurnRestConfig } from './config.js';

/** A TURN REST credential for `user`, valid until `expiresAt` (unix seconds). */
export function turnRestCredential(
  secret: string,
  user: string,
  expiresAt: number,
): { username: string; credential: string } {
  const username = `${Math.floor(expiresAt)}:${user}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

/** What the browser of `sessionId` gets, minted at `nowMs`. */
export function iceServersFor(
  webrtc: { iceServers: readonly IceServerConfig[]; turn: TurnRestConfig | null },
  sessionId: string,
  nowMs: number,
): IceServerConfig[] {
  const servers = [...webrtc.iceServers];
  const { turn } = webrtc;
  if (turn) {
    const expiresAt = Math.floor(nowMs / 1000) + turn.ttlSeconds;
    servers.push({ urls: turn.urls, ...turnRestCredential(turn.secret, sessionId, expiresAt) });
  }
  return servers;
}
