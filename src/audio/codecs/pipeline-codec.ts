// The call pipeline runs at one rate, 16 kHz mono s16: wideband for speech recognition and TTS,
// a third of Opus's 48 kHz, twice G.711's 8 kHz. PipelineCodec puts any AudioCodec behind that
// rate, resampling on the way in and out, so the call controller only ever sees 16 kHz frames.

import { Resampler } from '../resampler.js';
import type { AudioCodec } from './audio-codec.js';
import { FRAME_MS } from './audio-codec.js';

export const PIPELINE_RATE = 16000;
export const PIPELINE_FRAME_SAMPLES = (PIPELINE_RATE * FRAME_MS) / 1000;

export class PipelineCodec {
  private readonly toCodec: Resampler | null;
  private readonly fromCodec: Resampler | null;
  /**
   * Where encode() resamples to: encoders only read their input, so one array serves every frame
   * (a typed array's own memory is a malloc and, later, a sweep: per packet that showed in a media
   * worker's profile).
   */
  private codecFrame: Int16Array | undefined;
  /** Where decode() puts the codec's PCM before resampling it (decodeInto). */
  private codecPcm: Int16Array | undefined;

  constructor(
    readonly codec: AudioCodec,
    readonly rate = PIPELINE_RATE,
  ) {
    this.toCodec = codec.sampleRate === rate ? null : new Resampler(rate, codec.sampleRate);
    this.fromCodec = codec.sampleRate === rate ? null : new Resampler(codec.sampleRate, rate);
  }

  /** Samples of one 20 ms frame at the pipeline rate. */
  get frameSamples(): number {
    return (this.rate * FRAME_MS) / 1000;
  }

  /** One pipeline-rate frame to one RTP payload. */
  encode(pcm: Int16Array): Buffer {
    if (!this.toCodec) return this.codec.encode(pcm);
    this.codecFrame = this.toCodec.process(pcm, this.codecFrame);
    return this.codec.encode(this.codecFrame);
  }

  /** One RTP payload to pipeline-rate PCM. */
  decode(payload: Buffer): Int16Array {
    if (!this.fromCodec) return this.codec.decode(payload);
    // The codec-rate PCM is read by the resampler alone: one array for every packet where the
    // codec can decode into it. What is returned is always an array of the caller's own.
    const pcm = this.codec.decodeInto
      ? (this.codecPcm = this.codec.decodeInto(payload, this.codecPcm))
      : this.codec.decode(payload);
    return this.fromCodec.process(pcm);
  }

  /** A lost frame's replacement at the pipeline rate, keeping the resampler's stream continuous. */
  conceal(): Int16Array {
    const pcm = this.codec.conceal(this.codec.frameSamples);
    return this.fromCodec ? this.fromCodec.process(pcm) : pcm;
  }
}
