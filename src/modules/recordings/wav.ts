// The canonical 44-byte WAV header (RIFF, `fmt ` PCM, `data`) for 16-bit PCM recordings, and the
// two sizes in it that a recording written while the call runs has to keep right.
//
// A recording is written as it happens, so its final length is unknown when the header goes out.
// The writer (call-recorder.ts) puts the header first with the sizes of what is on disk so
// far and rewrites the two size fields now and then; after a crash the header is at most that far
// behind the data, and `fixedSizes` gives the two numbers a recovery pass writes back from the
// file's length alone. Players that trust the header then play everything that reached the disk.

export const WAV_HEADER_BYTES = 44;
/** Offset of the RIFF chunk size (file length - 8). */
export const RIFF_SIZE_OFFSET = 4;
/** Offset of the data chunk size (bytes of samples). */
export const DATA_SIZE_OFFSET = 40;

export interface WavFormat {
  sampleRate: number;
  channels: number;
}

/** The header for `dataBytes` bytes of 16-bit little-endian PCM. */
export function wavHeader(format: WavFormat, dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = format.channels * 2;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, RIFF_SIZE_OFFSET);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(format.sampleRate * blockAlign, 28); // byte rate
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, DATA_SIZE_OFFSET);
  return h;
}

export interface ParsedWavHeader extends WavFormat {
  riffSize: number;
  dataBytes: number;
}

/** Reads a header this module wrote; null for anything else (another layout is not ours to fix). */
export function parseWavHeader(h: Buffer): ParsedWavHeader | null {
  if (h.length < WAV_HEADER_BYTES) return null;
  if (h.toString('ascii', 0, 4) !== 'RIFF' || h.toString('ascii', 8, 12) !== 'WAVE') return null;
  if (h.toString('ascii', 12, 16) !== 'fmt ' || h.readUInt32LE(16) !== 16) return null;
  if (h.readUInt16LE(20) !== 1 || h.readUInt16LE(34) !== 16) return null;
  if (h.toString('ascii', 36, 40) !== 'data') return null;
  return {
    channels: h.readUInt16LE(22),
    sampleRate: h.readUInt32LE(24),
    riffSize: h.readUInt32LE(RIFF_SIZE_OFFSET),
    dataBytes: h.readUInt32LE(DATA_SIZE_OFFSET),
  };
}

/**
 * The sizes a header should carry for a file of `fileBytes` bytes: whole sample frames only (a
 * crash can cut the last write in the middle of one), or null when the header already says so.
 */
export function fixedSizes(
  header: ParsedWavHeader,
  fileBytes: number,
): { riffSize: number; dataBytes: number; truncateTo: number } | null {
  const block = header.channels * 2;
  const raw = Math.max(0, fileBytes - WAV_HEADER_BYTES);
  const dataBytes = raw - (raw % block);
  if (header.dataBytes === dataBytes && header.riffSize === 36 + dataBytes && raw === dataBytes) return null;
  return { riffSize: 36 + dataBytes, dataBytes, truncateTo: WAV_HEADER_BYTES + dataBytes };
}

/** Little-endian bytes of two mono channels as one stereo stream (left, right, left, …). */
export function interleaveStereo(left: Int16Array, right: Int16Array, out?: Buffer): Buffer {
  const n = Math.min(left.length, right.length);
  const buf = out ?? Buffer.allocUnsafe(n * 4);
  for (let i = 0; i < n; i++) {
    buf.writeInt16LE(left[i]!, i * 4);
    buf.writeInt16LE(right[i]!, i * 4 + 2);
  }
  return buf;
}
