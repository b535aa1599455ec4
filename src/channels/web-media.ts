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
  /** True from the moment DTLS is up and the audio track is open, until the end. */
  readonly connected: boolean;
  /** Resolves when the connection is up (true) or ended before it was (false). */
  whenConnected(): Promise<boolean>;
  /** Called once, when an answered connection fails or closes. */
  onEnd(listener: (how: WebPeerEnd) => void): () => void;
  /** Sends a text message on every open data channel of the connection (none: dropped). */
  sendData(message: string): void;
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

/**
 * What the browser is told when the party a `dial` node bridged to it presses a key: the same
 * object as a realtime frame and as a message on the peer connection's data channels.
 */
export interface DialDtmfMessage {
  type: 'dial_dtmf';
  digits: string;
  /** The dialled leg's call id. */
  call_id: string;
}

export function dialDtmfMessage(digits: string, callId: string): DialDtmfMessage {
  return { type: 'dial_dtmf', digits, call_id: callId };
}

/**
 * The browser's line as a dialled leg uses it (a `dial` node on a web session): the far party's
 * ringing and voice are played straight to the browser and the browser's audio is heard straight
 * from the peer, whatever the workflow's own playback and listening are doing.
 */
export interface WebLegLine {
  /** Queues 16 kHz PCM for the browser. */
  play(pcm: Int16Array): void;
  /** Milliseconds queued for the browser and not sent yet. */
  readonly queuedMs: number;
  /** Drops what is queued for the browser. */
  stopPlayback(): void;
  /** Every frame of the browser's audio (16 kHz), suspended or not. */
  onAudio(listener: (pcm: Int16Array) => void): () => void;
  /**
   * Every key press of the browser (data channel, RFC 4733, the socket's `dtmf` frames) goes to
   * `listener` instead of the workflow until the returned function is called.
   */
  divertDigits(listener: (digit: string) => void): () => void;
  /**
   * A key the dialled party (call `callId`) pressed: sent to the browser on its data channels as a
   * `dial_dtmf` message, and reported to the `dial` node (a `dial_dtmf` frame on the socket).
   */
  partyDigit(digit: string, callId: string): void;
  /** The workflow's own playback stops and its listening hears nothing (the leg is bridged). */
  suspend(): void;
  /** The workflow has the line again. */
  resume(): void;
}

/** A `dial` node's request on a web session (the channel's part; the session's own is the host's). */
export interface WebDialRequest {
  /** tel:+E164 or a sip: URI (normalised by the node). */
  destination: string;
  /** The registered number the leg leaves from (its trunk) and shows as caller ID. */
  from?: string;
  timeoutMs?: number;
  /** Answering-machine detection before the bridge (a machine fails the leg with `machine`). */
  machineDetection?: boolean;
  /** The node's signal: aborted while the leg rings, the leg is cancelled and the dial rejects. */
  signal: AbortSignal;
  line: WebLegLine;
  /** Aborted when the browser leaves (or the session ends): a bridged leg is hung up. */
  gone: AbortSignal;
}

/** How a web session's dial went; `bridged` (answered only) settles when the bridge is over. */
export interface WebDialResult {
  status: 'answered' | 'no_answer' | 'busy' | 'failed';
  callId?: string;
  reason?: string;
  /** With machineDetection, once the leg answered: who did. */
  answeredBy?: 'human' | 'machine' | 'unknown';
  bridged?: Promise<void>;
}

/** What places a web session's `dial` legs (a SIP node in this process). */
export type WebLegDialler = (request: WebDialRequest) => Promise<WebDialResult>;
