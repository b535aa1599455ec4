// How a call's media is set up, for both directions: our codec preference, the address our SDP
// advertises, and an RtpSession bound for a negotiated (inbound) or offered (outbound, and an
// inbound late offer) format.
//
// Codec preference: SIP_CODECS (config.sip.codecs), by default PCMU, PCMA, then Opus. Carrier
// trunks end in the PSTN, which is G.711: Opus on that leg buys no quality and costs an encoder per
// call, so G.711 comes first; a peer offering only Opus (a softphone) still gets Opus. Every offer
// and answer of a call's legs is built from the node's MediaEnv.codecs, so the order holds for
// inbound answers, outbound offers and the second legs of warm transfers and dial nodes alike.
//
// SRTP: a leg whose signalling is TLS (an INVITE that came in over TLS, a dial through a `tls`
// trunk) gets fresh SDES keys (sdesKeys), so its offers are RTP/SAVP and RTP/SAVP offers are
// answered; its RtpSession is keyed by the negotiation (audio.srtp), or 'pending' until the answer
// to our offer names the key. Keys never go out over a plain transport.
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { DEFAULT_SIP_CODECS } from '../../../config/config.js';
import type { Clock } from '../../../shared/clock.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import type { RtpPortAllocator } from '../../media/port-allocator.js';
import { RtpSession, type RtpSessionOptions } from '../../media/rtp-session.js';
import type { SharedPacer } from '../../media/shared-pacer.js';
import type { MediaWorkerPool } from '../../media/workers/media-worker-pool.js';
import type { CodecName } from '../../sip/sdp/codecs.js';
import type { SdesKey } from '../../sip/sdp/crypto.js';
import { ourCodec, DEFAULT_DYNAMIC_PTS } from '../../sip/sdp/codecs.js';
import type { LocalAudio, NegotiatedAudio } from '../../sip/sdp/session.js';

/** The preference when none is configured (SIP_CODECS's default). */
export const CODEC_PREFERENCE: readonly CodecName[] = DEFAULT_SIP_CODECS;

/**
 * The address our SDP gives for media: the SIP host, or, when it listens on every interface
 * (0.0.0.0 / ::), the first external IPv4 address of the machine (loopback as a last resort).
 */
export function advertisedAddress(host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return host;
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  }
  return '127.0.0.1';
}

export interface MediaEnv {
  clock: Clock;
  ports: RtpPortAllocator;
  /** Where RTP sockets bind (the SIP host). */
  bindHost: string;
  /** What our SDP says (advertisedAddress of the SIP host). */
  address: string;
  pacer?: SharedPacer;
  /** Media workers (MEDIA_WORKERS): each call's sockets, pacing and encoding run on one. */
  workers?: MediaWorkerPool;
  onError?: (err: Error) => void;
  /** Our codec preference, most preferred first (SIP_CODECS); default CODEC_PREFERENCE. */
  codecs?: readonly CodecName[];
  /**
   * MEDIA_TIMEOUT_SECONDS in ms: an answered call (or a bridged second leg) whose far end sends
   * nothing for this long is hung up (RtpSession.watchMedia); absent or 0: never.
   */
  mediaTimeoutMs?: number;
  /** MEDIA_HOLD_TIMEOUT_SECONDS in ms: the same while the far end holds the call; absent or 0: never. */
  mediaHoldTimeoutMs?: number;
}

/** The node's codec preference. */
export function codecsOf(env: Pick<MediaEnv, 'codecs'>): readonly CodecName[] {
  return env.codecs && env.codecs.length > 0 ? env.codecs : CODEC_PREFERENCE;
}

/** Our audio for an SDP; with SDES keys (a leg signalled over TLS) it offers and takes SRTP. */
export function localAudio(env: MediaEnv, port: number, keys?: readonly SdesKey[]): LocalAudio {
  return { address: env.address, port, codecs: [...codecsOf(env)], ...(keys ? { srtp: { keys } } : {}) };
}

/**
 * Fresh SDES master keys and salts for one leg, one per suite in our order of preference: the
 * 80-bit tag first (every SRTP peer has it), then the 32-bit one, then AES-256.
 */
export function sdesKeys(random: (bytes: number) => Buffer = randomBytes): SdesKey[] {
  return [
    { suite: 'AES_CM_128_HMAC_SHA1_80', key: random(30) },
    { suite: 'AES_CM_128_HMAC_SHA1_32', key: random(30) },
    { suite: 'AES_256_CM_HMAC_SHA1_80', key: random(46) },
  ];
}

/** The format an RtpSession for our offer starts with (the first preference) until the answer. */
export function offerCodec(env: Pick<MediaEnv, 'codecs'>): { name: CodecName; pt: number } {
  const first = ourCodec(codecsOf(env)[0]!, DEFAULT_DYNAMIC_PTS);
  return { name: first.name as CodecName, pt: first.pt };
}

/**
 * What a second leg bridged to the caller (a warm transfer's human, a dial node's party) offers:
 * the G.711 codecs of the preference, in its order, since that party is on the PSTN behind the
 * trunk; the whole preference when it names no G.711 (the operator asked for Opus alone).
 */
export function bridgedLegCodecs(codecs: readonly CodecName[]): CodecName[] {
  const g711 = codecs.filter((c) => c === 'PCMU' || c === 'PCMA');
  return g711.length > 0 ? g711 : [...codecs];
}

/** An RtpSession for the format `audio` negotiated, bound, its remote set, not started. */
export async function sessionForAnswer(
  env: MediaEnv,
  audio: NegotiatedAudio,
  callbacks: Pick<RtpSessionOptions, 'onAudio' | 'onDigit'>,
): Promise<RtpSession> {
  const codec = createCodec(audio.codec.name, audio.codec.pt);
  if (!codec) throw new Error(`no codec for ${audio.codec.name}`);
  const rtp = new RtpSession({
    clock: env.clock,
    ports: env.ports,
    host: env.bindHost,
    codec,
    payloadType: audio.codec.pt,
    ...(audio.telephoneEvent ? { telephoneEventPayloadType: audio.telephoneEvent.pt } : {}),
    remote: { address: audio.remoteAddress, port: audio.remotePort },
    ...(audio.srtp ? { srtp: audio.srtp } : {}),
    ...(env.pacer ? { pacer: env.pacer } : {}),
    ...(env.workers ? { workers: env.workers } : {}),
    ...(env.onError ? { onError: env.onError } : {}),
    ...callbacks,
  });
  await rtp.bind();
  rtp.setDirection(audio.direction);
  return rtp;
}

/**
 * An RtpSession for our offer (first preference, our event type), bound, no remote yet; `secure`
 * (an RTP/SAVP offer): silent until the answer's key arrives through applyAudio.
 */
export async function sessionForOffer(
  env: MediaEnv,
  callbacks: Pick<RtpSessionOptions, 'onAudio' | 'onDigit'>,
  secure = false,
): Promise<RtpSession> {
  const first = offerCodec(env);
  const codec = createCodec(first.name, first.pt);
  if (!codec) throw new Error(`no codec for ${first.name}`);
  const rtp = new RtpSession({
    clock: env.clock,
    ports: env.ports,
    host: env.bindHost,
    codec,
    payloadType: first.pt,
    telephoneEventPayloadType: DEFAULT_DYNAMIC_PTS.te8000,
    ...(secure ? { srtp: 'pending' as const } : {}),
    ...(env.pacer ? { pacer: env.pacer } : {}),
    ...(env.workers ? { workers: env.workers } : {}),
    ...(env.onError ? { onError: env.onError } : {}),
    ...callbacks,
  });
  await rtp.bind();
  return rtp;
}

/** Applies a (re-)negotiated format to a running session: address, direction, codec if changed. */
export function applyAudio(
  rtp: RtpSession,
  audio: NegotiatedAudio,
  current: { name: string; pt: number },
): void {
  rtp.setRemote({ address: audio.remoteAddress, port: audio.remotePort });
  // SRTP keys as negotiated (a re-INVITE may bring new ones; an unchanged side keeps its context).
  rtp.setSrtp(audio.srtp ?? null);
  // A hold (sendonly, inactive, c=0.0.0.0) is already folded into our direction by the answer.
  rtp.setDirection(audio.direction);
  if (audio.codec.name !== current.name || audio.codec.pt !== current.pt) {
    const codec = createCodec(audio.codec.name, audio.codec.pt);
    if (codec) rtp.setCodec(codec, audio.codec.pt);
  }
  // The events at the chosen codec's rate (an answer picking Opus names the 48 kHz type).
  if (audio.telephoneEvent) rtp.setTelephoneEventPayloadType(audio.telephoneEvent.pt);
}
