// Streaming RIFF/WAVE reader: finds the `fmt ` and `data` chunks as bytes arrive and hands back
// the sample bytes. The data size is ignored on purpose: a WAV written to a pipe (espeak-ng
// --stdout) cannot know its length in advance and carries a placeholder there.

export interface WavFormat {
  /** 1 = integer PCM. */
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

export class WavStreamReader {
  format: WavFormat | undefined;
  private head: Uint8Array = new Uint8Array(0);
  private inData = false;

  /** Feeds bytes; returns the sample bytes among them (empty while the header is incomplete). */
  push(bytes: Uint8Array): Uint8Array {
    if (this.inData) return bytes;
    const merged = new Uint8Array(this.head.length + bytes.length);
    merged.set(this.head);
    merged.set(bytes, this.head.length);
    this.head = merged;
    const view = Buffer.from(merged.buffer, merged.byteOffset, merged.byteLength);
    if (view.length < 12) return new Uint8Array(0);
    if (view.toString('latin1', 0, 4) !== 'RIFF' || view.toString('latin1', 8, 12) !== 'WAVE') {
      throw new Error('not a RIFF/WAVE stream');
    }
    let pos = 12;
    while (pos + 8 <= view.length) {
      const id = view.toString('latin1', pos, pos + 4);
      const size = view.readUInt32LE(pos + 4);
      if (id === 'data') {
        if (!this.format) throw new Error('WAV data before its fmt chunk');
        this.inData = true;
        const rest = merged.subarray(pos + 8);
        this.head = new Uint8Array(0);
        return rest;
      }
      // Chunks are padded to an even length.
      const next = pos + 8 + size + (size & 1);
      if (next > view.length) break;
      if (id === 'fmt ') {
        this.format = {
          audioFormat: view.readUInt16LE(pos + 8),
          channels: view.readUInt16LE(pos + 10),
          sampleRate: view.readUInt32LE(pos + 12),
          bitsPerSample: view.readUInt16LE(pos + 22),
        };
      }
      pos = next;
    }
    return new Uint8Array(0);
  }
}

/** A mono 16-bit WAV header with an unknown length, as a pipe writer produces (tests, tools). */
export function wavHeader(sampleRate: number, dataBytes = 0xffffffff): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(dataBytes === 0xffffffff ? 0xffffffff : 36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}
