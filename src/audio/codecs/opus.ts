// Opus (RFC 6716, RTP payload RFC 7587) through @evan/opus: libopus as a native addon with a WASM
// build it falls back to (OPUS_FORCE_WASM=1 forces it). Mono, 20 ms frames, VoIP tuning. The RTP
// clock is 48 kHz whatever the PCM rate, and the PCM is 48 kHz here: the pipeline reaches it
// through PipelineCodec's resampler (docs/media.md: one 16 kHz pipeline rate for every codec).

import { Decoder, Encoder } from '@evan/opus';
import { FRAME_MS, type AudioCodec } from './audio-codec.js';

export interface OpusOptions {
  /** Dynamic payload type; 111 is what browsers and most softphones offer. */
  payloadType?: number;
  /** Target bitrate in bit/s; 24 kbit/s is wideband speech with room to spare. */
  bitrate?: number;
  /** In-band forward error correction, useful when the far end reports loss. */
  fec?: boolean;
}

export class OpusCodec implements AudioCodec {
  readonly name = 'opus';
  readonly sampleRate = 48000;
  readonly clockRate = 48000;
  readonly payloadType: number;
  readonly frameSamples = (48000 * FRAME_MS) / 1000;
  private readonly encoder: Encoder;
  private readonly decoder: Decoder;

  constructor(options: OpusOptions = {}) {
    this.payloadType = options.payloadType ?? 111;
    this.encoder = new Encoder({ channels: 1, sample_rate: 48000, application: 'voip' });
    this.encoder.bitrate = options.bitrate ?? 24000;
    if (options.fec) this.encoder.inband_fec = true;
    this.decoder = new Decoder({ channels: 1, sample_rate: 48000 });
  }

  /** `pcm` must be a whole Opus frame (2.5 to 60 ms; 20 ms here). */
  encode(pcm: Int16Array): Buffer {
    const packet = this.encoder.encode(pcm);
    return Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  }

  decode(payload: Buffer): Int16Array {
    const bytes = this.decoder.decode(payload);
    // Copy: the addon may hand back a view it reuses, and Int16Array needs an even offset.
    const out = new Int16Array(bytes.byteLength >> 1);
    new Uint8Array(out.buffer).set(bytes.subarray(0, out.byteLength));
    return out;
  }

  /**
   * The binding exposes no decode-with-no-data, so libopus's own concealment is out of reach;
   * silence until the next packet resynchronises the decoder.
   */
  conceal(samples: number): Int16Array {
    return new Int16Array(samples);
  }
}
