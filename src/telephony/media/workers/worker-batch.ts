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
  private frames: { id: number; pcm: Int16Array; concealed: boolean; seq: number }[] = [];
  private frameSamples = 0;
  private digits: [number, DigitEvent][] = [];
  private digitEnds: [number, DigitEnd][] = [];
  private latched: [number, string, number][] = [];

  /** An RTCP datagram (unprotected) a session took from its latched host. */
  rtcp(id: number, data: Buffer, address: string, port: number): void {
    this.rx.push({ id, data, address, port });
    this.rxBytes += data.length;
  }

  /** A frame a session's jitter buffer played out (the caller's copy: the decoder reuses its own). */
  frame(id: number, pcm: Int16Array, concealed: boolean, seq: number): void {
    this.frames.push({ id, pcm, concealed, seq });
    this.frameSamples += pcm.length;
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
    const frames: WireFrame[] = [];
    if (this.frames.length === 0) return { pcm: null, frames };
    const pcm = new Int16Array(this.frameSamples);
    let at = 0;
    for (const f of this.frames) {
      pcm.set(f.pcm, at);
      frames.push([f.id, at, f.pcm.length, f.concealed ? 1 : 0, f.seq]);
      at += f.pcm.length;
    }
    this.frames = [];
    this.frameSamples = 0;
    return { pcm, frames };
  }
}
