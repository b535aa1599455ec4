// The seam between the web channel and a browser's peer connection, as call-media.ts is for a
// call: the channel turns workflow requests into speech over a WebPeer and never sees SDP, ICE or
// RTP. src/webrtc implements it over node-datachannel; the wiring hands the session host a
// factory, so the channels and the engine never import a WebRTC library.
import type { CallMedia } from './call-media.js';

/** How a peer connection ended, once it was answered. */
export type WebPeerEnd = 'failed' | 'closed';

/** An `RTCIceServer` as browsers take it (WEBRTC_ICE_SERVERS). */
export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/**
 * One browser's peer connection: audio both ways at the pipeline rate and keypad digits (from
 * any data channel's `{"type":"dtmf"}` messages and RFC 4733 events), like a call's CallMedia.
 */
export interface WebPeer extends CallMedia {
  /** Answers the browser's offer (candidates inside); rejects with a WebPeerError. */
  answer(offerSdp: string): Promise<string>;
  /** A trickled candidate of the browser; null ends them. Throws WebPeerError before an offer. */
  addRemoteCandidate(candidate: string | null, sdpMid?: string): void;
  /** True from the moment DTLS is up until the end. */
  readonly connected: boolean;
  /** Resolves when the connection is up (true) or ended before it was (false). */
  whenConnected(): Promise<boolean>;
  /** Called once, when an answered connection fails or closes. */
  onEnd(listener: (how: WebPeerEnd) => void): () => void;
  /** Closes the connection; idempotent, and no onEnd follows. */
  close(): void;
}

export type WebPeerFactory = () => WebPeer;

/**
 * Why an offer or candidate was refused: `code` goes to the client in the `error` frame, with the
 * message. The session is untouched.
 */
export class WebPeerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WebPeerError';
  }
}

/** What the realtime socket asks of a channel that takes WebRTC (the web channel). */
export interface WebRtcSignalling {
  /** The browser's offer in, the answer out; rejects with a WebPeerError. */
  acceptOffer(sdp: string): Promise<string>;
  addIceCandidate(candidate: string | null, sdpMid?: string): void;
  /** Resolves true once an answered offer's connection is up, false if it ends first. */
  whenMediaConnected(): Promise<boolean>;
  /** Handed to the browser in the `ready` frame. */
  readonly iceServers: readonly IceServer[];
}

export function takesWebRtc(channel: object): channel is WebRtcSignalling {
  return typeof (channel as Partial<WebRtcSignalling>).acceptOffer === 'function';
}
