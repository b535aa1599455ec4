// What a media worker gathers for the main thread between two of its 20 ms messages (one `batch`,
// protocol.ts): the RTCP datagrams its sessions took, the decoded frames of the sessions the main
// thread listens to, key presses and latch changes. The datagrams go in one buffer and the frames
// in another: a transfer list of thousands of buffers costs more than the copy.
import type { DigitEnd, DigitEvent } from '../dtmf.js';
import type { FromWorker, WireDatagram, WireFrame, WireStats } from './protocol.js';

export type BatchMessage = Extract<FromWorker, { t: 'batch' }>;

export class WorkerBatch {
  private rx: { id: number; data: Buffer; address: string; port: number }[] = [];
  private rxBytes = 0;
  /** The frames gathered, one after another in `pcm`; the message transfers it and a new one starts. */
  private pcm = new Int16Array(0);
  private frames: WireFrame[] = [];
  private frameSamples = 0;
  private digits: [number, DigitEvent][] = [];
  private digitEnds: [number, DigitEnd][] = [];
  private latched: [number, string, number][] = [];

  /** An RTCP datagram (unprotected) a session took from its latched host. */
  rtcp(id: number, data: Buffer, address: string, port: number): void {
    this.rx.push({ id, data, address, port });
    this.rxBytes += data.length;
  }

  /**
   * A frame a session's jitter buffer played out, copied in at once (the decoder may reuse its
   * array): one array per batch, not one per frame.
   */
  frame(id: number, pcm: Int16Array, concealed: boolean, seq: number): void {
    const at = this.frameSamples;
    if (this.pcm.length < at + pcm.length) {
      // Room for twice as much: a worker's batches are alike from one 20 ms to the next.
      const grown = new Int16Array(2 * (at + pcm.length));
      grown.set(this.pcm.subarray(0, at));
      this.pcm = grown;
    }
    this.pcm.set(pcm, at);
    this.frames.push([id, at, pcm.length, concealed ? 1 : 0, seq]);
    this.frameSamples = at + pcm.length;
  }

  digit(id: number, d: DigitEvent): void {
    this.digits.push([id, d]);
  }

  digitEnd(id: number, d: DigitEnd): void {
    this.digitEnds.push([id, d]);
  }

  /** A session latched to a new source. */
  latch(id: number, address: string, port: number): void {
    this.latched.push([id, address, port]);
  }

  /** Nothing gathered since the last message. */
  get empty(): boolean {
    return (
      this.rx.length === 0 &&
      this.frames.length === 0 &&
      this.digits.length === 0 &&
      this.digitEnds.length === 0 &&
      this.latched.length === 0
    );
  }

  /**
   * The message for what was gathered, with the taps' frames, the figures and the frame timer's
   * ticks, and the buffers it transfers; the batch starts empty again.
   */
  take(
    sent: [number, Int16Array][],
    stats: WireStats[],
    ticks: BatchMessage['ticks'],
  ): { message: BatchMessage; transfer: ArrayBuffer[] } {
    const { data, entries } = this.takeDatagrams();
    const { pcm, frames } = this.takeFrames();
    const transfer: ArrayBuffer[] = data ? [data] : [];
    if (pcm) transfer.push(pcm.buffer as ArrayBuffer);
    for (const [, p] of sent) transfer.push(p.buffer as ArrayBuffer);
    const message: BatchMessage = {
      t: 'batch',
      data,
      rtcp: entries,
      pcm,
      frames,
      digits: this.digits,
      digitEnds: this.digitEnds,
      latched: this.latched,
      stats,
      sent,
      ticks,
    };
    this.digits = [];
    this.digitEnds = [];
    this.latched = [];
    return { message, transfer };
  }

  /** The RTCP datagrams in one buffer, and where each one is in it. */
  private takeDatagrams(): { data: ArrayBuffer | null; entries: WireDatagram[] } {
    const entries: WireDatagram[] = [];
    if (this.rx.length === 0) return { data: null, entries };
    const all = new Uint8Array(this.rxBytes);
    let offset = 0;
    for (const d of this.rx) {
      all.set(d.data, offset);
      entries.push([d.id, offset, d.data.length, d.address, d.port]);
      offset += d.data.length;
    }
    this.rx = [];
    this.rxBytes = 0;
    return { data: all.buffer, entries };
  }

  /** The decoded frames in one buffer, and where each one is in it. */
  private takeFrames(): { pcm: Int16Array | null; frames: WireFrame[] } {
    const frames = this.frames;
    if (frames.length === 0) return { pcm: null, frames };
    // The whole array goes (transferred); the next batch starts one of the same size.
    const pcm = this.pcm.subarray(0, this.frameSamples);
    this.pcm = new Int16Array(this.pcm.length);
    this.frames = [];
    this.frameSamples = 0;
    return { pcm, frames };
  }
}
