// The media layer's public face for the call controller: one RtpSession per call leg, codecs by
// SDP name, the port allocator (one per process), and the types their callbacks carry.

export type { AudioCodec } from './codecs/audio-codec.js';
export { FRAME_MS } from './codecs/audio-codec.js';
export { G711Codec } from './codecs/g711.js';
export { OpusCodec, type OpusOptions } from './codecs/opus.js';
export { PipelineCodec, PIPELINE_FRAME_SAMPLES, PIPELINE_RATE } from './codecs/pipeline-codec.js';
export { createCodec, SUPPORTED_CODECS } from './codecs/registry.js';
export { DTMF_EVENTS, type DigitEnd, type DigitEvent } from './dtmf.js';
export type { JitterBufferOptions, JitterStats } from './jitter-buffer.js';
export { RtpPortAllocator } from './port-allocator.js';
export type { RemoteReport } from './rtcp-reporter.js';
export type { AudioFrameInfo, ReceiverCounters } from './rtp-receiver.js';
export type { DigitOptions, SenderStats } from './rtp-sender.js';
export {
  RtpSession,
  type MediaAddress,
  type RtpSessionOptions,
  type SessionCounters,
} from './rtp-session.js';
