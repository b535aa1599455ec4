// A fake streaming TTS vendor (the tts_vendor_1 protocol): POST …/text-to-speech/{voice}/stream
// answers with raw audio bytes in chunks of an odd size, so samples straddle chunk boundaries.
import { startFakeVendorServer, type FakeVendorServer } from '../fake-llm-servers/server.js';

export interface FakeSpeech {
  /** The audio bytes to stream (see pcmBytes). */
  bytes: Uint8Array;
  /** Bytes per written chunk; odd by default to split samples. */
  chunkBytes?: number;
}

/** Little-endian bytes of 16-bit samples, as the vendor's pcm_* formats carry them. */
export function pcmBytes(samples: Int16Array): Uint8Array {
  const out = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => out.writeInt16LE(s, i * 2));
  return out;
}

/** A ramp of `count` samples (distinct values, easy to compare after reassembly). */
export function ramp(count: number, step = 37): Int16Array {
  const out = new Int16Array(count);
  for (let i = 0; i < count; i++) out[i] = ((i * step) % 65536) - 32768;
  return out;
}

export function speechFrames(speech: FakeSpeech): Uint8Array[] {
  const size = speech.chunkBytes ?? 333;
  const out: Uint8Array[] = [];
  for (let i = 0; i < speech.bytes.length; i += size) out.push(speech.bytes.subarray(i, i + size));
  return out;
}

export type FakeTtsServer = FakeVendorServer<FakeSpeech>;

export function startFakeTtsServer(): Promise<FakeTtsServer> {
  return startFakeVendorServer(speechFrames, 'audio/pcm');
}
