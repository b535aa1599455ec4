// One call's media over UDP: binds an even port from the allocator (and the odd one for RTCP
// unless rtcp-mux), sends what the RtpSender paces and feeds what arrives to the MediaReceiver,
// runs RTCP, and does symmetric RTP for callers behind NAT: replies go to where the peer's
// packets come from, not only to the address its SDP claims (the latching rule: latch.ts).
//
// With media workers (`workers`) the sockets and both halves of the media run on a worker thread
// (workers/media-worker.ts): this object is then the main thread's handle, which keeps RTCP (built
// here every 5 s, sent by the worker) and mirrors the worker's figures, frames and key presses.
//
// SRTP (srtp/): with keys (`srtp`, or setSrtp once an answer brings them) every packet is
// protected on its way out and must authenticate on its way in, RTCP included; what does not is
// dropped and counted (`srtpDropped`) before it can latch the session or reach the receiver.
// 'pending' (our SRTP offer, not yet answered) sends nothing and drops everything until keyed.

import type dgram from 'node:dgram';
import type { Clock } from '../../shared/clock.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import type { AudioCodec } from '../../audio/codecs/audio-codec.js';
import { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import type { DigitEnd, DigitEvent } from './dtmf.js';
import type { JitterBufferOptions } from './jitter-buffer.js';
import { MediaTimeout, type MediaTimeoutBounds } from './media-timeout.js';
import { Latch, sendablePort, type MediaAddress } from './latch.js';
import type { RtpPortAllocator } from './port-allocator.js';
import type { SharedPacer } from './shared-pacer.js';
import { parseRtcp } from './rtcp.js';
import { RtcpReporter, type RemoteReport } from './rtcp-reporter.js';
import { RtpPacket } from './rtp-packet.js';
import {
  bindRtpSockets,
  closeSocket,
  takeDatagram,
  type IntakeCounters,
  type IntakeSession,
} from './rtp-sockets.js';
import { MediaReceiver, type AudioFrameInfo } from './rtp-receiver.js';
import { RtpSender, type DigitOptions } from './rtp-sender.js';
import { SrtpStreams, type SrtpParameters } from './srtp/srtp-streams.js';
import type { MediaWorkerPool, WorkerSession } from './workers/media-worker-pool.js';
import type { WireSrtp, WireStats } from './workers/protocol.js';
import { RemoteReceiver, type MediaReceiverView } from './workers/remote-receiver.js';
import { RemoteSender, type MediaSender } from './workers/remote-sender.js';

export type { MediaAddress } from './latch.js';

export interface RtpSessionOptions {
  clock: Clock;
  ports: RtpPortAllocator;
  /** Local address to bind (the SIP host). */
  host: string;
  codec: AudioCodec;
  payloadType?: number;
  telephoneEventPayloadType?: number;
  /** RTP and RTCP on one port (RFC 5761). */
  rtcpMux?: boolean;
  /** The peer's media address from its SDP, if known yet. */
  remote?: MediaAddress;
  /** SRTP keys, or 'pending' while our SRTP offer awaits its answer (see setSrtp). */
  srtp?: SrtpParameters | 'pending';
  latch?: 'any' | 'sdp-address';
  relatchAfter?: number;
  cname?: string;
  /** Randomness for SSRC, initial sequence and timestamp, and the RTCP interval. */
  random?: () => number;
  idle?: 'silence' | 'pause';
  jitter?: Omit<JitterBufferOptions, 'clockRate'>;
  rtcpIntervalMs?: number;
  /** One frame timer shared by every call of the node (see shared-pacer.ts); else two per call. */
  pacer?: SharedPacer;
  /**
   * Media workers (workers/): the sockets and both halves of the media (pacing, encoding, SRTP,
   * the jitter buffer, decoding, digits) run on a worker thread, so a busy main loop cannot delay
   * a frame; without, all of it runs here.
   */
  workers?: MediaWorkerPool;
  onAudio?: (pcm: Int16Array, info: AudioFrameInfo) => void;
  onDigit?: (digit: DigitEvent) => void;
  onDigitEnd?: (digit: DigitEnd) => void;
  onLatch?: (source: MediaAddress) => void;
  onRemoteReport?: (report: RemoteReport) => void;
  onBye?: (reason?: string) => void;
  onError?: (err: Error) => void;
}

/** What reaches the session's sockets (rtp-sockets.ts), and what it sends. */
export interface SessionCounters extends IntakeCounters {
  rtpOut: number;
  rtcpOut: number;
}

const BIND_ATTEMPTS = 16;

export class RtpSession {
  readonly counters: SessionCounters = {
    rtpIn: 0,
    rtpOut: 0,
    rtcpIn: 0,
    rtcpOut: 0,
    malformed: 0,
    stray: 0,
    srtpDropped: 0,
  };
  readonly sender: MediaSender;
  readonly receiver: MediaReceiverView;
  readonly rtcp: RtcpReporter;
  readonly ssrc: number;
  private rtpSocket: dgram.Socket | null = null;
  private rtcpSocket: dgram.Socket | null = null;
  private port = 0;
  private readonly latch: Latch;
  private readonly packet = new RtpPacket();
  /** What takeDatagram needs of this session (rtp-sockets.ts). */
  private readonly intake: IntakeSession;
  private closed = false;
  /** Frames a worker-side bridge brought to this session's sender, and dropped (queue full). */
  readonly bridged = { in: 0, dropped: 0 };
  private srtp: SrtpStreams | 'pending' | null = null;
  /** The session's half on a media worker, when it runs on one. */
  private worker: WorkerSession | null = null;
  private readonly initial: { sequence: number; timestamp: number };
  /** The SDP direction as last applied (setDirection): ours, with the far end's hold folded in. */
  private direction: SdpDirection = 'sendrecv';
  private mediaTimeout: MediaTimeout | null = null;

  constructor(private readonly options: RtpSessionOptions) {
    const random = options.random ?? Math.random;
    const codec = new PipelineCodec(options.codec);
    this.ssrc = Math.floor(random() * 0x100000000) >>> 0;
    this.latch = new Latch(
      {
        ...(options.latch ? { latch: options.latch } : {}),
        ...(options.relatchAfter !== undefined ? { relatchAfter: options.relatchAfter } : {}),
        ...(options.rtcpMux ? { rtcpMux: true } : {}),
      },
      options.remote ?? null,
    );
    this.intake = { latch: this.latch, counters: this.counters, packet: this.packet };
    if (options.srtp) this.srtp = options.srtp === 'pending' ? 'pending' : SrtpStreams.create(options.srtp);
    this.initial = {
      sequence: Math.floor(random() * 0x10000),
      timestamp: Math.floor(random() * 0x100000000),
    };
    this.sender = options.workers
      ? new RemoteSender(options.clock, this.ssrc)
      : new RtpSender({
          clock: options.clock,
          codec,
          ssrc: this.ssrc,
          sequence: this.initial.sequence,
          timestamp: this.initial.timestamp,
          payloadType: options.payloadType,
          telephoneEventPayloadType: options.telephoneEventPayloadType,
          idle: options.idle,
          transmit: (b) => this.sendRtp(b),
          pacer: options.pacer,
          onError: options.onError,
        });
    this.receiver = options.workers
      ? new RemoteReceiver({
          ...(options.onAudio ? { onAudio: options.onAudio } : {}),
          ...(options.onDigit ? { onDigit: options.onDigit } : {}),
          ...(options.onDigitEnd ? { onDigitEnd: options.onDigitEnd } : {}),
          ...(options.onError ? { onError: options.onError } : {}),
        })
      : new MediaReceiver({
          clock: options.clock,
          codec: new PipelineCodec(options.codec),
          payloadType: options.payloadType,
          telephoneEventPayloadType: options.telephoneEventPayloadType,
          jitter: options.jitter,
          pacer: options.pacer,
          onAudio: options.onAudio,
          onDigit: options.onDigit,
          onDigitEnd: options.onDigitEnd,
          onError: options.onError,
        });
    this.rtcp = new RtcpReporter(
      {
        ssrc: this.ssrc,
        cname: options.cname ?? `switchboard-${this.ssrc.toString(16)}@${options.host}`,
        sender: () => {
          const s = this.sender.stats;
          return s.packets === 0
            ? null
            : { packets: s.packets, octets: s.octets, rtpTimestampAt: (m) => this.sender.timestampAt(m) };
        },
        remote: () => {
          const ssrc = this.receiver.ssrc;
          const stats = this.receiver.reception;
          return ssrc === null || !stats ? null : { ssrc, stats };
        },
      },
      {
        clock: options.clock,
        intervalMs: options.rtcpIntervalMs,
        random,
        transmit: (b) => void this.sendRtcp(b),
        onReport: options.onRemoteReport,
        onBye: (_ssrc, reason) => options.onBye?.(reason),
      },
    );
  }

  /** The bound RTP port (RTCP is port + 1 unless muxed); 0 before start. */
  get localPort(): number {
    return this.port;
  }

  /** Where media goes now: the latched source, else the SDP address. */
  get destination(): MediaAddress | null {
    return this.latch.destination;
  }

  get isLatched(): boolean {
    return this.latch.latched !== null;
  }

  /** Runs on a media worker (see workers/). */
  get onWorker(): boolean {
    return this.worker !== null;
  }

  /**
   * Joins this session's received audio to `other`'s sender and the other way round on the media
   * workers, without this thread (bridge.ts uses it for a transfer's or a dial's two legs). Null
   * when the two do not both run on one pool's workers: the bridge then passes frames here.
   * Returns the unjoin.
   */
  bridgeOnWorkers(other: RtpSession, maxQueuedMs: number): (() => void) | null {
    const pool = this.options.workers;
    const a = this.worker;
    const b = other.worker;
    if (!pool || !a || !b || this.closed || other.closed || !pool.owns(b)) return null;
    return pool.bridge(a, b, maxQueuedMs);
  }

  /** Binds the sockets; media starts flowing with start(). */
  async bind(): Promise<number> {
    if (this.options.workers) return this.bindOnWorker(this.options.workers);
    for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      const port = this.options.ports.allocate();
      if (port === null) throw new Error('RTP port range exhausted');
      try {
        const sockets = await bindRtpSockets(this.options.host, port, this.options.rtcpMux ?? false);
        this.rtpSocket = sockets.rtp;
        this.rtcpSocket = sockets.rtcp;
        this.port = port;
        break;
      } catch (err) {
        // Another process holds it: put it back at the end of the line and try the next one.
        this.options.ports.release(port);
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    if (!this.rtpSocket) throw new Error('no free RTP port after several attempts');
    this.rtpSocket.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo, false));
    this.rtpSocket.on('error', (err) => this.options.onError?.(err));
    this.rtcpSocket?.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo, true));
    this.rtcpSocket?.on('error', (err) => this.options.onError?.(err));
    return this.port;
  }

  private async bindOnWorker(pool: MediaWorkerPool): Promise<number> {
    const o = this.options;
    const sender = this.sender as RemoteSender;
    const receiver = this.receiver as RemoteReceiver;
    for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      const port = o.ports.allocate();
      if (port === null) throw new Error('RTP port range exhausted');
      try {
        this.worker = await pool.open(
          {
            host: o.host,
            port,
            rtcpMux: o.rtcpMux ?? false,
            codec: o.codec.name,
            payloadType: o.payloadType ?? o.codec.payloadType,
            ...(o.telephoneEventPayloadType !== undefined
              ? { telephoneEventPayloadType: o.telephoneEventPayloadType }
              : {}),
            ssrc: this.ssrc,
            sequence: this.initial.sequence,
            timestamp: this.initial.timestamp,
            ...(o.idle ? { idle: o.idle } : {}),
            srtp: o.srtp === 'pending' ? 'pending' : o.srtp ? toWire(o.srtp) : null,
            receive: {
              remote: this.latch.remote ? wireAddress(this.latch.remote) : null,
              ...(o.latch ? { latch: o.latch } : {}),
              ...(o.relatchAfter !== undefined ? { relatchAfter: o.relatchAfter } : {}),
              ...(o.jitter ? { jitter: o.jitter } : {}),
              // Decoded audio crosses to this thread only when something here listens.
              audio: o.onAudio !== undefined,
            },
          },
          {
            onRtcp: (msg, source) => this.onWorkerRtcp(msg, source),
            onFrame: (pcm, info) => receiver.frame(pcm, info),
            onDigit: (d) => receiver.digit(d),
            onDigitEnd: (d) => receiver.digitEnd(d),
            onLatched: (source) => {
              if (this.closed) return;
              this.latch.latchTo(source.address, source.port);
              o.onLatch?.({ address: source.address, port: source.port });
            },
            onStats: (stats) => this.onWorkerStats(stats),
            onSent: (pcm) => sender.onSentFrames(pcm),
            onError: (err) => o.onError?.(err),
          },
        );
        this.port = port;
        break;
      } catch (err) {
        o.ports.release(port);
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    if (!this.worker) throw new Error('no free RTP port after several attempts');
    sender.attach(this.worker);
    return this.port;
  }

  /** The worker's figures: the sender's, the receiver's, the session's counters, SRTP's. */
  private onWorkerStats(stats: WireStats): void {
    const sender = this.sender as RemoteSender;
    sender.onStats(stats);
    (this.receiver as RemoteReceiver).onStats(stats);
    const c = this.counters;
    c.rtpOut = sender.rtpOut;
    c.rtpIn = stats.rx.rtpIn;
    c.rtcpIn = stats.rx.rtcpIn;
    c.malformed = stats.rx.malformed;
    c.stray = stats.rx.stray;
    c.srtpDropped = stats.rx.srtpDropped;
    if (stats.srtpIn && this.srtp instanceof SrtpStreams)
      Object.assign(this.srtp.inbound.counters, stats.srtpIn);
    this.bridged.in = stats.bridgedIn;
    this.bridged.dropped = stats.bridgeDropped;
  }

  /** RTCP the worker took (unprotected, from the latched host): reports, BYE. */
  private onWorkerRtcp(msg: Buffer, source: Source): void {
    if (this.closed) return;
    try {
      const packets = parseRtcp(msg);
      if (!packets) return;
      this.latch.rtcpArrived(source.address, source.port);
      this.rtcp.handle(packets);
    } catch (err) {
      this.options.onError?.(err as Error);
    }
  }

  /**
   * Sets or changes the peer's SDP address (answer received, re-INVITE). A new address drops the
   * latch: media follows the SDP again; a packet from exactly that address latches at once, any
   * other source only after a run of `relatchAfter`, so stragglers from the old source cannot.
   */
  setRemote(remote: MediaAddress): void {
    this.latch.setRemote(remote);
    // The worker applies the same rule to what it receives and sends.
    this.worker?.post({ t: 'remote', id: this.worker.id, remote: wireAddress(remote) });
  }

  /**
   * Keys SRTP (an answer to our offer, a re-INVITE's new keys), keeping the context of a side
   * whose key did not change; null goes back to plain RTP (a re-INVITE to RTP/AVP).
   */
  setSrtp(params: SrtpParameters | null): void {
    if (!params) this.srtp = null;
    else if (this.srtp instanceof SrtpStreams) this.srtp.rekey(params);
    else this.srtp = SrtpStreams.create(params);
    // The worker keeps its own contexts and uses only the outbound one; these only the inbound.
    this.worker?.post({ t: 'srtp', id: this.worker.id, srtp: params ? toWire(params) : null });
  }

  /** The SRTP contexts' own counts (protected, unprotected, and drops by cause); null for plain RTP. */
  get srtpContexts(): SrtpStreams | null {
    return this.srtp instanceof SrtpStreams ? this.srtp : null;
  }

  start(): void {
    this.sender.start();
    this.receiver.start();
    this.rtcp.start();
  }

  /** Sends the final RTCP BYE, stops everything and frees the port. */
  async close(reason?: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatchMedia();
    this.sender.stop();
    this.receiver.stop();
    this.rtcp.stop();
    // Metrics (src/ops): what this stream lost and its last jitter estimate, once, at its end.
    const reception = this.receiver.reception;
    if (reception?.valid) {
      emitTelemetry({
        kind: 'rtp.closed',
        expected: Math.max(0, reception.expected),
        lost: Math.max(0, reception.cumulativeLost),
        jitterSeconds: reception.jitterMs / 1000,
      });
    }
    // Wait for the BYE to leave: closing the socket first would drop it.
    if ((this.rtpSocket || this.worker) && this.destination) await this.sendRtcp(this.rtcp.buildBye(reason));
    await Promise.all([closeSocket(this.rtpSocket), closeSocket(this.rtcpSocket), this.worker?.close()]);
    if (this.port) this.options.ports.release(this.port);
  }

  enqueue(pcm: Int16Array): void {
    this.sender.enqueue(pcm);
  }

  sendDigits(digits: string, options?: DigitOptions): Promise<void> {
    return this.sender.sendDigits(digits, options);
  }

  /** A re-INVITE changed the format: both directions switch at once (on a worker: both there). */
  setCodec(codec: AudioCodec, payloadType?: number): void {
    this.sender.setCodec(new PipelineCodec(codec), payloadType ?? codec.payloadType);
    this.receiver.setCodec(new PipelineCodec(codec), payloadType ?? codec.payloadType);
  }

  /** Both directions use the telephone-event payload type the negotiation chose. */
  setTelephoneEventPayloadType(payloadType: number): void {
    this.sender.setTelephoneEventPayloadType(payloadType);
    this.receiver.setTelephoneEventPayloadType(payloadType);
  }

  /**
   * Applies the SDP direction (RFC 3264 hold): we send only for sendrecv and sendonly. Receiving
   * goes on whatever it says, as peers differ on what they send while held.
   */
  setDirection(direction: SdpDirection): void {
    this.direction = direction;
    this.sender.paused = direction === 'recvonly' || direction === 'inactive';
  }

  /**
   * Calls `onTimeout` once when nothing (RTP or RTCP) has arrived from the far end for
   * `bounds.timeoutMs` (media-timeout.ts); 0 turns it off. While the SDP says the far end holds
   * the call or will not send (any direction but sendrecv) it may rightly send nothing for long:
   * its silence is measured against `bounds.holdTimeoutMs` instead (absent or 0: not counted),
   * and `onTimeout` is told so. Stops with close() or unwatchMedia().
   */
  watchMedia(bounds: MediaTimeoutBounds, onTimeout: (held: boolean) => void): void {
    if (this.closed || this.mediaTimeout) return;
    if (bounds.timeoutMs <= 0 && !(bounds.holdTimeoutMs && bounds.holdTimeoutMs > 0)) return;
    this.mediaTimeout = new MediaTimeout({
      clock: this.options.clock,
      ...bounds,
      activity: () => this.counters.rtpIn + this.counters.rtcpIn,
      held: () => this.direction !== 'sendrecv',
      onTimeout,
    });
    this.mediaTimeout.start();
  }

  unwatchMedia(): void {
    this.mediaTimeout?.stop();
    this.mediaTimeout = null;
  }

  private onDatagram(msg: Buffer, rinfo: Source, onRtcpPort: boolean): void {
    if (this.closed) return;
    try {
      this.process(msg, rinfo, onRtcpPort);
    } catch (err) {
      // A bad packet or a failing consumer costs one packet, never the process.
      this.counters.malformed++;
      this.options.onError?.(err as Error);
    }
  }

  private process(datagram: Buffer, rinfo: Source, onRtcpPort: boolean): void {
    const got = takeDatagram(this.intake, this.srtp, datagram, rinfo, onRtcpPort);
    if (got === null) return;
    if (typeof got === 'object') return this.rtcp.handle(got.packets);
    if (got === 'latched') this.options.onLatch?.(this.latch.latched!);
    this.counters.rtpIn++;
    (this.receiver as MediaReceiver).handle(this.packet, this.options.clock.monotonic());
  }

  private sendRtp(packet: Buffer): void {
    const to = this.destination;
    const srtp = this.srtp;
    if (!to || !this.rtpSocket || this.closed || !sendablePort(to.port) || srtp === 'pending') return;
    this.counters.rtpOut++;
    this.rtpSocket.send(srtp ? srtp.outbound.protectRtp(packet) : packet, to.port, to.address);
  }

  private sendRtcp(compound: Buffer): Promise<void> {
    const socket = this.options.rtcpMux ? this.rtpSocket : this.rtcpSocket;
    const worker = this.worker;
    const to = this.latch.rtcpDestination();
    const srtp = this.srtp;
    if ((!socket && !worker) || !to || !sendablePort(to.port) || srtp === 'pending') return Promise.resolve();
    this.counters.rtcpOut++;
    if (worker) return worker.sendRtcp(compound, { address: to.address, port: to.port });
    const dest = to;
    const packet = srtp ? srtp.outbound.protectRtcp(compound) : compound;
    return new Promise((resolve) => socket!.send(packet, dest.port, dest.address, () => resolve()));
  }
}

/** An SDP media direction (RFC 3264). */
type SdpDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

/** Where a datagram came from. */
interface Source {
  address: string;
  port: number;
}

function wireAddress(a: MediaAddress): { address: string; port: number; rtcpPort?: number } {
  return { address: a.address, port: a.port, ...(a.rtcpPort !== undefined ? { rtcpPort: a.rtcpPort } : {}) };
}

function toWire(p: SrtpParameters): WireSrtp {
  return { suite: p.suite, localKey: new Uint8Array(p.localKey), remoteKey: new Uint8Array(p.remoteKey) };
}
