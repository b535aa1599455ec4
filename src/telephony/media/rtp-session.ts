// One call's media over UDP: binds an even port from the allocator (and the odd one for RTCP
// unless rtcp-mux), sends what the RtpSender paces and feeds what arrives to the MediaReceiver,
// runs RTCP, and does symmetric RTP for callers behind NAT: replies go to where the peer's
// packets come from, not only to the address its SDP claims.
//
// Latching rule: until latched, media goes to the SDP address. The first valid RTP packet latches
// the session to its source ('any' mode, the default: a NATed phone's SDP carries its private
// address), or, in 'sdp-address' mode, the first one from the SDP's IP address (the port may
// differ). Once latched, packets from other sources are dropped and counted, and the session
// moves only after `relatchAfter` valid packets in a row from one new source, so a stray or
// injected packet cannot steal the stream (RTP bleed).
//
// SRTP (srtp/): with keys (`srtp`, or setSrtp once an answer brings them) every packet is
// protected on its way out and must authenticate on its way in, RTCP included; what does not is
// dropped and counted (`srtpDropped`) before it can latch the session or reach the receiver.
// 'pending' (our SRTP offer, not yet answered) sends nothing and drops everything until keyed.

import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { Clock } from '../../shared/clock.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import type { AudioCodec } from '../../audio/codecs/audio-codec.js';
import { PipelineCodec } from '../../audio/codecs/pipeline-codec.js';
import type { DigitEnd, DigitEvent } from './dtmf.js';
import type { JitterBufferOptions } from './jitter-buffer.js';
import type { RtpPortAllocator } from './port-allocator.js';
import type { SharedPacer } from './shared-pacer.js';
import { isRtcp, parseRtcp } from './rtcp.js';
import { RtcpReporter, type RemoteReport } from './rtcp-reporter.js';
import { decodeRtp, RtpPacket, RtpStatus } from './rtp-packet.js';
import { MediaReceiver, type AudioFrameInfo } from './rtp-receiver.js';
import { RtpSender, type DigitOptions } from './rtp-sender.js';
import { SrtpStreams, type SrtpParameters } from './srtp/srtp-streams.js';
import type { MediaWorkerPool, WorkerSession } from './workers/media-worker-pool.js';
import type { WireSrtp } from './workers/protocol.js';
import { RemoteSender, type MediaSender } from './workers/remote-sender.js';

export interface MediaAddress {
  address: string;
  port: number;
  /** RTCP port when not muxed; RTP port + 1 by default (RFC 3605's a=rtcp may say otherwise). */
  rtcpPort?: number;
}

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
   * Media workers (workers/): the sockets, the pacing, encoding and SRTP of what we send run on a
   * worker thread, so a busy main loop cannot delay a frame; without, all of it runs here.
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

export interface SessionCounters {
  rtpIn: number;
  rtpOut: number;
  rtcpIn: number;
  rtcpOut: number;
  malformed: number;
  /** Valid packets from a source other than the latched one. */
  stray: number;
  /** SRTP or SRTCP packets dropped: failed authentication, replayed, or arrived before the keys. */
  srtpDropped: number;
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
  readonly receiver: MediaReceiver;
  readonly rtcp: RtcpReporter;
  readonly ssrc: number;
  private rtpSocket: dgram.Socket | null = null;
  private rtcpSocket: dgram.Socket | null = null;
  private port = 0;
  private remote: MediaAddress | null;
  private latched: MediaAddress | null = null;
  private rtcpRemote: MediaAddress | null = null;
  private candidate: { key: string; count: number } | null = null;
  private readonly packet = new RtpPacket();
  private closed = false;
  /** The SDP address changed mid-call: latch at once only to exactly the new address. */
  private moved = false;
  private srtp: SrtpStreams | 'pending' | null = null;
  /** The session's half on a media worker, when it runs on one. */
  private worker: WorkerSession | null = null;
  private readonly initial: { sequence: number; timestamp: number };

  constructor(private readonly options: RtpSessionOptions) {
    const random = options.random ?? Math.random;
    const codec = new PipelineCodec(options.codec);
    this.ssrc = Math.floor(random() * 0x100000000) >>> 0;
    this.remote = options.remote ?? null;
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
    this.receiver = new MediaReceiver({
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
    return this.latched ?? this.remote;
  }

  get isLatched(): boolean {
    return this.latched !== null;
  }

  /** Binds the sockets; media starts flowing with start(). */
  async bind(): Promise<number> {
    if (this.options.workers) return this.bindOnWorker(this.options.workers);
    const type = isIP(this.options.host) === 6 ? 'udp6' : 'udp4';
    for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      const port = this.options.ports.allocate();
      if (port === null) throw new Error('RTP port range exhausted');
      try {
        this.rtpSocket = await bindSocket(type, this.options.host, port);
        if (!this.options.rtcpMux) {
          try {
            this.rtcpSocket = await bindSocket(type, this.options.host, port + 1);
          } catch (err) {
            this.rtpSocket.close();
            this.rtpSocket = null;
            throw err;
          }
        }
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
          },
          {
            onDatagram: (msg, source, onRtcpPort) => this.onDatagram(msg, source, onRtcpPort),
            onStats: (stats) => {
              sender.onStats(stats);
              this.counters.rtpOut = sender.rtpOut;
            },
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
    this.postDestination();
    return this.port;
  }

  /** The worker sends to wherever the latching rule says now. */
  private postDestination(): void {
    const to = this.destination;
    this.worker?.post({
      t: 'dest',
      id: this.worker.id,
      to: to ? { address: to.address, port: to.port } : null,
    });
  }

  /**
   * Sets or changes the peer's SDP address (answer received, re-INVITE). A new address drops the
   * latch: media follows the SDP again; a packet from exactly that address latches at once, any
   * other source only after a run of `relatchAfter`, so stragglers from the old source cannot.
   */
  setRemote(remote: MediaAddress): void {
    const old = this.remote;
    this.remote = remote;
    if (old && (old.address !== remote.address || old.port !== remote.port)) {
      this.latched = null;
      this.rtcpRemote = null;
      this.candidate = null;
      this.moved = true;
    }
    this.postDestination();
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

  /** A re-INVITE changed the format: both directions switch at once. */
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
  setDirection(direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive'): void {
    this.sender.paused = direction === 'recvonly' || direction === 'inactive';
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
    const rtcp = onRtcpPort || isRtcp(datagram);
    let msg = datagram;
    const srtp = this.srtp;
    if (srtp !== null) {
      const plain =
        srtp === 'pending' ? null : rtcp ? srtp.inbound.unprotectRtcp(msg) : srtp.inbound.unprotectRtp(msg);
      if (!plain) {
        this.counters.srtpDropped++;
        return;
      }
      msg = plain;
    }
    if (rtcp) {
      const packets = parseRtcp(msg);
      if (!packets) {
        this.counters.malformed++;
        return;
      }
      if (this.latched && this.latched.address !== rinfo.address) {
        // RTCP can end a call (BYE): take it only from the host media is latched to.
        this.counters.stray++;
        return;
      }
      this.counters.rtcpIn++;
      if (!this.rtcpRemote) this.rtcpRemote = { address: rinfo.address, port: rinfo.port };
      this.rtcp.handle(packets);
      return;
    }
    if (decodeRtp(msg, this.packet) !== RtpStatus.Ok) {
      this.counters.malformed++;
      return;
    }
    if (!this.accept(rinfo)) {
      this.counters.stray++;
      return;
    }
    this.counters.rtpIn++;
    this.receiver.handle(this.packet, this.options.clock.monotonic());
  }

  /** Applies the latching rule to a valid RTP packet's source; true when it may be played. */
  private accept(rinfo: Source): boolean {
    // Port 0 cannot be answered (a raw-socket sender, a spoofed packet): never latch to it.
    if (!sendablePort(rinfo.port)) return false;
    const latched = this.latched;
    if (latched && latched.address === rinfo.address && latched.port === rinfo.port) {
      this.candidate = null;
      return true;
    }
    const remote = this.remote;
    // After a move only the new SDP address itself (port too) latches at once.
    const fromSdp =
      remote !== null && remote.address === rinfo.address && (!this.moved || remote.port === rinfo.port);
    const immediate = !latched && (fromSdp || (this.options.latch !== 'sdp-address' && !this.moved));
    if (!immediate) {
      const key = `${rinfo.address}|${rinfo.port}`;
      this.candidate =
        this.candidate?.key === key ? { key, count: this.candidate.count + 1 } : { key, count: 1 };
      if (this.candidate.count < (this.options.relatchAfter ?? 5)) return false;
    }
    this.candidate = null;
    this.latched = { address: rinfo.address, port: rinfo.port };
    // RTCP follows media: muxed on the same port, else the port above unless RTCP already came in.
    if (this.options.rtcpMux) this.rtcpRemote = this.latched;
    else if (!this.rtcpRemote || this.rtcpRemote.address !== rinfo.address) {
      this.rtcpRemote = { address: rinfo.address, port: rinfo.port + 1 };
    }
    this.postDestination();
    this.options.onLatch?.(this.latched);
    return true;
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
    let to = this.rtcpRemote;
    if (!to && this.remote) {
      const port = this.options.rtcpMux ? this.remote.port : (this.remote.rtcpPort ?? this.remote.port + 1);
      to = { address: this.remote.address, port };
    }
    const srtp = this.srtp;
    if ((!socket && !worker) || !to || !sendablePort(to.port) || srtp === 'pending') return Promise.resolve();
    this.counters.rtcpOut++;
    if (worker) return worker.sendRtcp(compound, { address: to.address, port: to.port });
    const dest = to;
    const packet = srtp ? srtp.outbound.protectRtcp(compound) : compound;
    return new Promise((resolve) => socket!.send(packet, dest.port, dest.address, () => resolve()));
  }
}

/** Where a datagram came from. */
interface Source {
  address: string;
  port: number;
}

function toWire(p: SrtpParameters): WireSrtp {
  return { suite: p.suite, localKey: new Uint8Array(p.localKey), remoteKey: new Uint8Array(p.remoteKey) };
}

function bindSocket(type: 'udp4' | 'udp6', host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type, reuseAddr: false });
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

function closeSocket(socket: dgram.Socket | null): Promise<void> {
  return new Promise((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
}

/** dgram's send throws (inside a timer: a crash) for a port outside 1..65535; SDP's 0 means none. */
function sendablePort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port < 65536;
}
