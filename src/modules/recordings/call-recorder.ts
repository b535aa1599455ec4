// Records one call as a 2-channel WAV while it runs: left the far party, right the service (what
// the call's sender puts on the wire: speech, hold silence, and a bridged party's voice during a
// transfer or dial bridge). 16-bit PCM at the pipeline rate.
//
// Both directions arrive as 20 ms frames on their own ticks. Each side waits in a short queue;
// whatever both sides have is interleaved and written. When one side goes quiet on the wire (a
// receiver starved of packets, a sender paused on hold) the other's queue grows: past `maxLagMs`
// its audio is written against silence, so the two channels stay aligned within that much and
// memory stays bounded whatever the peers do.
//
// Writing never holds up the call: bytes are handed to the storage one write at a time; while a
// write is in flight new bytes collect, up to `maxPendingBytes` (a slow disk), beyond which they
// are dropped and counted. A failed write (disk full, quota) ends the recording, not the call:
// `failure` says why and `onFailure` is told once. The header's sizes are rewritten every
// `headerEveryMs` of audio, so a crash leaves a header at most that far behind the data (the
// recovery pass, recovery.ts, then makes it exact).
import { DATA_SIZE_OFFSET, interleaveStereo, RIFF_SIZE_OFFSET, wavHeader } from './wav.js';
import type { RecordingFile } from './recording-storage.js';

export interface CallRecorderOptions {
  sampleRate?: number;
  maxLagMs?: number;
  maxPendingBytes?: number;
  headerEveryMs?: number;
  onFailure?: (reason: string) => void;
}

export interface RecorderStats {
  /** Stereo sample frames written (or queued to be). */
  frames: number;
  /** Bytes dropped because the disk fell behind by more than maxPendingBytes. */
  droppedBytes: number;
  /** Samples of one side written against silence because the other side was silent on the wire. */
  paddedSamples: number;
}

export const RECORDING_RATE = 16000;

export class CallRecorder {
  readonly stats: RecorderStats = { frames: 0, droppedBytes: 0, paddedSamples: 0 };
  failure: string | null = null;
  private readonly rate: number;
  private readonly maxLag: number;
  private readonly maxPending: number;
  private readonly headerEvery: number;
  private readonly sides: [Int16Array[], Int16Array[]] = [[], []];
  private readonly queued = [0, 0];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing: Promise<void> | null = null;
  private dataBytes = 0;
  private sinceHeader = 0;
  private closed = false;

  constructor(
    private readonly file: RecordingFile,
    private readonly options: CallRecorderOptions = {},
  ) {
    this.rate = options.sampleRate ?? RECORDING_RATE;
    this.maxLag = Math.round(((options.maxLagMs ?? 120) * this.rate) / 1000);
    this.maxPending = options.maxPendingBytes ?? 256 * 1024;
    this.headerEvery = Math.round(((options.headerEveryMs ?? 1000) * this.rate) / 1000) * 4;
    this.enqueue(wavHeader({ sampleRate: this.rate, channels: 2 }, 0));
  }

  /** A frame of the far party's audio (left channel). */
  far(pcm: Int16Array): void {
    this.push(0, pcm);
  }

  /** A frame of what the service sent (right channel). */
  service(pcm: Int16Array): void {
    this.push(1, pcm);
  }

  /** Bytes held in memory right now (queues and unwritten data): bounded by the options. */
  get heldBytes(): number {
    return (this.queued[0]! + this.queued[1]!) * 2 + this.pendingBytes;
  }

  /** Samples waiting for the other side (both queues): at most maxLagMs' worth plus a frame. */
  get queuedSamples(): number {
    return this.queued[0]! + this.queued[1]!;
  }

  /** Writes what is queued (the leading side against silence), the final header, and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.drain(true);
    this.closed = true;
    await this.kick();
    try {
      if (!this.failure) await this.writeHeader();
    } catch (err) {
      this.fail(err);
    }
    await this.file.close().catch(() => undefined);
  }

  private push(side: 0 | 1, pcm: Int16Array): void {
    if (this.closed || this.failure || pcm.length === 0) return;
    // The absent side is back: it lines up with the other side's next frame, not a queued one.
    if (this.absent === side) this.absent = null;
    this.sides[side].push(pcm);
    this.queued[side]! += pcm.length;
    this.drain(false);
  }

  private drain(all: boolean): void {
    const both = Math.min(this.queued[0]!, this.queued[1]!);
    if (both > 0) {
      this.absent = null;
      this.emit(both, both);
    }
    const lead = this.queued[0]! > 0 ? 0 : 1;
    const excess = this.queued[lead]!;
    // Once a side has been missing for maxLagMs it counts as absent, and the other side is written
    // frame by frame until it returns, so its first frame back lines up with the present.
    if (excess > this.maxLag) this.absent = lead === 0 ? 1 : 0;
    if (excess > 0 && (all || this.absent === (lead === 0 ? 1 : 0))) {
      this.stats.paddedSamples += excess;
      this.emit(lead === 0 ? excess : 0, lead === 1 ? excess : 0, excess);
    }
  }

  /** Takes `l` and `r` samples from the two queues (zeros where short of `n`) and writes them. */
  private emit(l: number, r: number, n = Math.max(l, r)): void {
    const left = this.take(0, l, n);
    const right = this.take(1, r, n);
    this.stats.frames += n;
    this.enqueue(interleaveStereo(left, right));
    this.dataBytes += n * 4;
    this.sinceHeader += n * 4;
    if (this.sinceHeader >= this.headerEvery) {
      this.sinceHeader = 0;
      void this.kick(true);
    } else {
      void this.kick();
    }
  }

  private take(side: 0 | 1, count: number, n: number): Int16Array {
    const out = new Int16Array(n);
    let filled = 0;
    const q = this.sides[side];
    while (filled < count) {
      const head = q[0]!;
      const want = count - filled;
      if (head.length <= want) {
        out.set(head, filled);
        filled += head.length;
        q.shift();
      } else {
        out.set(head.subarray(0, want), filled);
        q[0] = head.subarray(want);
        filled += want;
      }
    }
    this.queued[side]! -= count;
    return out;
  }

  private enqueue(bytes: Buffer): void {
    if (this.pendingBytes + bytes.length > this.maxPending) {
      this.stats.droppedBytes += bytes.length;
      this.dataBytes -= bytes.length; // never reaches the file; the header counts what does
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private headerDue = false;
  /** The side that has sent nothing for maxLagMs, if any. */
  private absent: 0 | 1 | null = null;

  /** Starts the write loop if it is idle; resolves when everything pending is on disk. */
  private kick(header = false): Promise<void> {
    if (header) this.headerDue = true;
    if (!this.writing) {
      this.writing = this.loop().finally(() => {
        this.writing = null;
      });
    }
    return this.writing;
  }

  private async loop(): Promise<void> {
    while (!this.failure && (this.pending.length > 0 || this.headerDue)) {
      const chunk = this.pending.length > 0 ? Buffer.concat(this.pending) : null;
      this.pending = [];
      this.pendingBytes = 0;
      try {
        if (chunk) await this.file.append(chunk);
        if (this.headerDue) {
          this.headerDue = false;
          await this.writeHeader();
        }
      } catch (err) {
        this.fail(err);
      }
    }
  }

  private writtenData = 0;

  private async writeHeader(): Promise<void> {
    // Only what has been appended counts: pending bytes may yet be lost with the process.
    const data = this.dataBytes - this.pendingBytes;
    if (data === this.writtenData && this.closed === false) return;
    this.writtenData = data;
    const sizes = Buffer.alloc(4);
    sizes.writeUInt32LE(36 + data, 0);
    await this.file.writeAt(RIFF_SIZE_OFFSET, Buffer.from(sizes));
    sizes.writeUInt32LE(data, 0);
    await this.file.writeAt(DATA_SIZE_OFFSET, sizes);
  }

  private fail(err: unknown): void {
    if (this.failure) return;
    const e = err as NodeJS.ErrnoException;
    this.failure = e.code ? `${e.code}: ${e.message}` : String(e.message ?? err);
    this.pending = [];
    this.pendingBytes = 0;
    this.queued[0] = this.queued[1] = 0;
    this.sides[0].length = this.sides[1].length = 0;
    this.options.onFailure?.(this.failure);
  }
}
