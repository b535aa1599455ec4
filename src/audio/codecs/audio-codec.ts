// The one shape every voice codec takes, so the RTP session and the call controller never care
// whether a call speaks G.711 or Opus.

export interface AudioCodec {
  /** SDP encoding name (PCMU, PCMA, opus). */
  readonly name: string;
  /** Rate of the PCM that encode takes and decode returns. */
  readonly sampleRate: number;
  /** RTP timestamp rate (48000 for Opus whatever its PCM rate, RFC 7587). */
  readonly clockRate: number;
  /** Static or default dynamic payload type; SDP negotiation may override it. */
  readonly payloadType: number;
  /** PCM samples in one 20 ms frame at sampleRate. */
  readonly frameSamples: number;
  encode(pcm: Int16Array): Buffer;
  decode(payload: Buffer): Int16Array;
  /**
   * decode() into `out` when it fits (returned), for a caller that only reads the PCM before the
   * next packet (a resampler behind it); codecs without it decode into a new array.
   */
  decodeInto?(payload: Buffer, out: Int16Array | undefined): Int16Array;
  /** Fills a lost frame: packet loss concealment where the codec has it, else silence. */
  conceal(samples: number): Int16Array;
}

export const FRAME_MS = 20;
