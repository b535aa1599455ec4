// A browser's WebRTC offer, read before it reaches the peer connection: which audio m-line we
// answer, in which codec, whether keypad tones may come as RFC 4733 events, and whether it asks
// for a data channel. An offer we cannot answer is refused here with a code the realtime socket
// hands back in its `error` frame, and the peer connection is never touched.
//
// Codec choice: Opus is required (the realtime protocol says so); PCMU or PCMA is taken instead
// only when the browser lists it before Opus, as RFC 3264 lets the offerer rank its formats.
import { parse } from 'sdp-transform';
import { WebPeerError } from '../channels/web-media.js';

export type WebCodecName = 'opus' | 'PCMU' | 'PCMA';

export interface AudioOffer {
  /** The m-line's mid: the answer's track must carry the same one. */
  mid: string;
  codec: WebCodecName;
  payloadType: number;
  /** telephone-event at the chosen codec's clock rate, when offered. */
  telephoneEventPayloadType: number | null;
}

export interface ParsedOffer {
  audio: AudioOffer;
  /** The mid of the data channel's m-line, or null when the offer has none. */
  dataMid: string | null;
  /**
   * The offer as the peer connection gets it. `a=setup:actpass` becomes `a=setup:passive`, so we
   * answer `active` (as RFC 5763 advises) and send the ClientHello ourselves. Why: the browser's
   * ICE comes up first (its check is answered at once; ours waits for our next check), so as DTLS
   * client it sent its ClientHello before our DTLS transport existed, libdatachannel dropped it,
   * and the handshake waited for the retransmission (50 ms in Chromium, a second in
   * libdatachannel). Our ClientHello leaves when our ICE is up, later; a browser that is not
   * ready for it yet keeps it (Chromium caches an early ClientHello).
   */
  sdp: string;
}

/** Longest SDP accepted; a browser's offer with one audio line and a data channel is ~3-6 KB. */
export const MAX_OFFER_BYTES = 32 * 1024;

const CODECS: Record<string, { name: WebCodecName; rate: number }> = {
  opus: { name: 'opus', rate: 48000 },
  pcmu: { name: 'PCMU', rate: 8000 },
  pcma: { name: 'PCMA', rate: 8000 },
};

export function parseOffer(sdp: unknown): ParsedOffer {
  if (typeof sdp !== 'string' || sdp.trim() === '') {
    throw new WebPeerError('invalid_sdp', 'sdp must be a non-empty string holding the offer.');
  }
  if (Buffer.byteLength(sdp) > MAX_OFFER_BYTES) {
    throw new WebPeerError('invalid_sdp', `The offer is larger than ${MAX_OFFER_BYTES} bytes.`);
  }
  if (!/^v=0\r?\n/.test(sdp))
    throw new WebPeerError('invalid_sdp', 'The offer is not SDP (it must start with v=0).');
  let session: ReturnType<typeof parse>;
  try {
    session = parse(sdp);
  } catch (err) {
    throw new WebPeerError('invalid_sdp', `The offer could not be parsed: ${(err as Error).message}`);
  }
  const media = session.media ?? [];
  if (media.length === 0) throw new WebPeerError('invalid_sdp', 'The offer has no m-lines.');
  const fingerprint = session.fingerprint ?? media.find((m) => m.fingerprint)?.fingerprint;
  const ufrag = session.iceUfrag ?? media.find((m) => m.iceUfrag)?.iceUfrag;
  if (!fingerprint || !ufrag) {
    throw new WebPeerError(
      'invalid_sdp',
      'The offer lacks a=fingerprint or a=ice-ufrag: it is not a WebRTC offer (DTLS-SRTP over ICE).',
    );
  }
  const m = media.find((line) => line.type === 'audio' && line.port !== 0 && line.direction !== 'inactive');
  if (!m) {
    throw new WebPeerError(
      'no_audio',
      'The offer has no active audio m-line: add a microphone track (sendrecv).',
    );
  }
  if (m.mid === undefined || m.mid === '') {
    throw new WebPeerError('invalid_sdp', "The offer's audio m-line has no a=mid (BUNDLE needs one).");
  }
  const order = String(m.payloads ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  const rtp = m.rtp ?? [];
  let chosen: { name: WebCodecName; payloadType: number; rate: number } | null = null;
  let hasOpus = false;
  for (const pt of order) {
    const map = rtp.find((r) => r.payload === pt);
    const known = map ? CODECS[map.codec.toLowerCase()] : undefined;
    if (!map || !known || map.rate !== known.rate) continue;
    if (known.name === 'opus') hasOpus = true;
    chosen ??= { name: known.name, payloadType: pt, rate: known.rate };
  }
  if (!hasOpus) {
    throw new WebPeerError('unsupported_codec', "The offer's audio must include Opus (opus/48000/2).");
  }
  const event = rtp.find((r) => r.codec.toLowerCase() === 'telephone-event' && r.rate === chosen!.rate);
  const data = media.find((line) => line.type === 'application' && line.port !== 0);
  return {
    audio: {
      mid: String(m.mid),
      codec: chosen!.name,
      payloadType: chosen!.payloadType,
      telephoneEventPayloadType: event ? event.payload : null,
    },
    dataMid: data?.mid !== undefined ? String(data.mid) : null,
    sdp: sdp.replace(/^a=setup:actpass(\r?)$/gm, 'a=setup:passive$1'),
  };
}
