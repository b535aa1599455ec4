// A media worker's side: it owns the UDP sockets of the sessions given to it and both halves of
// their media, on a frame timer of its own (one SharedPacer per worker). Sending: pacing,
// resampling, encoding, RFC 4733, SRTP. Receiving: SRTP unprotect, the latching rule, the jitter
// buffer, decoding and digits. A bridge between two sessions (a transfer's or a dial's two legs)
// passes each side's decoded frames straight to the other's sender, within this worker or over a
// MessageChannel to the other's. The main thread gets, once per 20 ms, the decoded audio of the
// sessions it listens to, key presses, latch changes, RTCP datagrams and figures. Nothing here
// waits on the main thread, so a busy main loop cannot delay or skip a frame.
import type dgram from 'node:dgram';
import { readlinkSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import { systemClock } from '../../../shared/clock.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import { PipelineCodec } from '../../../audio/codecs/pipeline-codec.js';
import { Latch, sendablePort } from '../latch.js';
import { RtpPacket } from '../rtp-packet.js';
import { bindRtpSockets, closeSocket, takeDatagram, type IntakeCounters } from '../rtp-sockets.js';
import type { AudioCodec } from '../../../audio/codecs/audio-codec.js';
import { MediaReceiver, type AudioFrameInfo } from '../rtp-receiver.js';
import { RtpSender } from '../rtp-sender.js';
import { SharedPacer } from '../shared-pacer.js';
import { SrtpStreams, type SrtpParameters } from '../srtp/srtp-streams.js';
import { applyThreadNice } from './thread-priority.js';
import type { BridgeFrame, FromWorker, OpenSession, ToWorker, WireSrtp, WireStats } from './protocol.js';
import { WorkerBatch } from './worker-batch.js';

/** Stats go with every fifth batch: 100 ms old at most, which is all a queue estimate needs. */
const STATS_EVERY = 5;
/** Frames a worker's timer sends at once after a stall before it skips the older ones. */
const CATCH_UP_FRAMES = 10;

interface Bridge {
  peer: number;
  /** null: the peer lives on this worker. */
  port: MessagePort | null;
  maxQueuedMs: number;
}

interface Session {
  id: number;
  rtp: dgram.Socket;
  rtcp: dgram.Socket | null;
  rtcpMux: boolean;
  sender: RtpSender;
  receiver: MediaReceiver;
  latch: Latch;
  /** The latched source or SDP address, pre-resolved for the socket (see transmit). */
  to: { address: string; port: number } | null;
  /** The RTP socket is connect()ed to `to`: sends skip the address lookup. */
  connected: boolean;
  connecting: boolean;
  /** Bumped by every aim(), so a connect that completes late knows it is stale. */
  aimGen: number;
  srtp: SrtpStreams | 'pending' | null;
  counters: IntakeCounters;
  /** Where its RTP is decoded to: one packet for the whole worker. */
  packet: RtpPacket;
  /** Decoded frames go to the main thread. */
  audio: boolean;
  bridge: Bridge | null;
  bridgedIn: number;
  bridgeDropped: number;
  rtpOut: number;
  clockRate: number;
  tap: Int16Array[] | null;
  gen: number;
  received: number;
  closed: boolean;
}

/**
 * `connectSockets`: connect() each call's RTP socket to its latched peer (the default; MEDIA_CONNECT=0
 * turns it off, for measuring against send-to). `nice`: the scheduling priority this thread asks for
 * (thread-priority.ts); the ready message says what it got.
 */
export function runMediaWorker(port: MessagePort, connectSockets = true, nice = 0): void {
  new MediaWorker(port, connectSockets, nice).run();
}

/** The sessions of one worker thread, and what it owes the main thread. */
class MediaWorker {
  private readonly sessions = new Map<number, Session>();
  // A stall here is the OS's (a loaded machine), not our code's: catch up to 200 ms of frames late
  // rather than leave holes, the far end's jitter buffer absorbs most of them.
  private readonly pacer = new SharedPacer(systemClock, 20, CATCH_UP_FRAMES);
  private readonly batch = new WorkerBatch();
  private readonly packet = new RtpPacket();
  private flushes = 0;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly port: MessagePort,
    private readonly connectSockets: boolean,
    /** The scheduling priority this thread asks for (thread-priority.ts). */
    private readonly nice: number,
  ) {}

  /** Takes the main thread's messages; the ready message says what priority the thread got. */
  run(): void {
    this.port.on('message', (m: ToWorker) => this.receive(m));
    this.post({ t: 'ready', ...applyThreadNice(this.nice), thread: osThreadId() });
  }

  private post(m: FromWorker, transfer?: ArrayBuffer[]): void {
    this.port.postMessage(m, transfer);
  }

  private error(id: number, err: unknown): void {
    this.post({ t: 'error', id, message: (err as Error).message ?? String(err) });
  }

  /** Every 20 ms while sessions are open: what was gathered (and every fifth time the figures). */
  private readonly flush = (): void => {
    const statsDue = ++this.flushes % STATS_EVERY === 0;
    const sent: [number, Int16Array][] = [];
    for (const s of this.sessions.values()) {
      if (s.tap && s.tap.length > 0) {
        sent.push([s.id, concat(s.tap)]);
        s.tap = [];
      }
    }
    if (sent.length === 0 && this.batch.empty && !statsDue) return;
    const stats: WireStats[] = [];
    if (statsDue) {
      const epochMs = performance.timeOrigin + performance.now();
      for (const s of this.sessions.values()) stats.push(statsOf(s, epochMs));
    }
    const { message, transfer } = this.batch.take(sent, stats, this.pacer.ticks);
    this.post(message, transfer);
  };

  /** A message from the main thread: open a session, or one for a session of ours. */
  private receive(m: ToWorker): void {
    if (m.t === 'open') return void this.open(m);
    const s = this.sessions.get(m.id);
    if (!s) {
      // A digit request on a session already gone still has a caller waiting.
      if (m.t === 'digits' || m.t === 'rtcp') this.post({ t: 'done', id: m.id, req: m.req });
      return;
    }
    try {
      this.apply(s, m);
    } catch (err) {
      this.error(m.id, err);
    }
  }

  private apply(s: Session, m: Exclude<ToWorker, OpenSession>): void {
    switch (m.t) {
      case 'start':
        s.sender.start();
        return s.receiver.start();
      case 'remote':
        s.latch.setRemote(m.remote);
        return this.aim(s);
      case 'bridge':
        return this.bridge(s, m);
      case 'unbridge':
        return unbridge(s);
      case 'pcm':
        s.received += m.pcm.length;
        return s.sender.enqueue(m.pcm);
      case 'clear':
        s.gen = m.gen;
        s.received = 0;
        return s.sender.clear();
      case 'paused':
        s.sender.paused = m.paused;
        return;
      case 'codec':
        return setCodec(s, m.codec, m.payloadType);
      case 'te':
        s.receiver.setTelephoneEventPayloadType(m.payloadType);
        return s.sender.setTelephoneEventPayloadType(m.payloadType);
      case 'digits':
        return void s.sender
          .sendDigits(m.digits, m.options)
          .then(() => this.post({ t: 'done', id: m.id, req: m.req }));
      case 'srtp':
        if (!m.srtp) s.srtp = null;
        else if (s.srtp instanceof SrtpStreams) s.srtp.rekey(fromWire(m.srtp));
        else s.srtp = SrtpStreams.create(fromWire(m.srtp));
        return;
      case 'tap':
        s.tap = m.on ? [] : null;
        // Only a tap keeps what was sent; without one the sender reuses its frame array.
        s.sender.onSent = m.on ? (pcm) => s.tap?.push(pcm) : null;
        return;
      case 'rtcp':
        return this.sendRtcp(s, m);
      case 'close':
        return void this.close(s);
    }
  }

  /** Binds a session's sockets and starts receiving on them; `opened` (or its error) goes back. */
  private async open(m: OpenSession): Promise<void> {
    let rtp: dgram.Socket;
    let rtcp: dgram.Socket | null;
    try {
      ({ rtp, rtcp } = await bindRtpSockets(m.host, m.port, m.rtcpMux));
    } catch (err) {
      this.post({
        t: 'opened',
        id: m.id,
        error: (err as Error).message,
        code: (err as NodeJS.ErrnoException).code,
      });
      return;
    }
    const codec = createCodec(m.codec, m.payloadType);
    if (!codec) {
      rtp.close();
      rtcp?.close();
      this.post({ t: 'opened', id: m.id, error: `no codec for ${m.codec}` });
      return;
    }
    const session = this.newSession(m, rtp, rtcp, codec);
    this.aim(session);
    this.listen(session);
    this.sessions.set(m.id, session);
    if (!this.flushTimer) this.flushTimer = setInterval(this.flush, 20);
    this.post({ t: 'opened', id: m.id });
  }

  /** A session on its bound sockets: its latch, sender and receiver on this worker's frame timer. */
  private newSession(
    m: OpenSession,
    rtp: dgram.Socket,
    rtcp: dgram.Socket | null,
    codec: AudioCodec,
  ): Session {
    const latch = new Latch(
      {
        rtcpMux: m.rtcpMux,
        ...(m.receive.latch ? { latch: m.receive.latch } : {}),
        ...(m.receive.relatchAfter !== undefined ? { relatchAfter: m.receive.relatchAfter } : {}),
      },
      m.receive.remote,
    );
    const session: Session = {
      id: m.id,
      rtp,
      rtcp,
      rtcpMux: m.rtcpMux,
      latch,
      to: null,
      connected: false,
      connecting: false,
      aimGen: 0,
      srtp: m.srtp === 'pending' ? 'pending' : m.srtp ? SrtpStreams.create(fromWire(m.srtp)) : null,
      counters: { rtpIn: 0, rtcpIn: 0, malformed: 0, stray: 0, srtpDropped: 0 },
      packet: this.packet,
      audio: m.receive.audio,
      bridge: null,
      bridgedIn: 0,
      bridgeDropped: 0,
      rtpOut: 0,
      clockRate: codec.clockRate,
      tap: null,
      gen: 0,
      received: 0,
      closed: false,
      sender: this.newSender(m, codec, (b) => this.transmit(session, b)),
      receiver: this.newReceiver(m, codec, (pcm, info) =>
        this.played(session, pcm, info.concealed, info.sequence),
      ),
    };
    return session;
  }

  private newSender(m: OpenSession, codec: AudioCodec, transmit: (packet: Buffer) => void): RtpSender {
    return new RtpSender({
      clock: systemClock,
      codec: new PipelineCodec(codec),
      ssrc: m.ssrc,
      sequence: m.sequence,
      timestamp: m.timestamp,
      payloadType: m.payloadType,
      telephoneEventPayloadType: m.telephoneEventPayloadType,
      idle: m.idle,
      pacer: this.pacer,
      transmit,
      onError: (err) => this.error(m.id, err),
    });
  }

  private newReceiver(
    m: OpenSession,
    codec: AudioCodec,
    onAudio: (pcm: Int16Array, info: AudioFrameInfo) => void,
  ): MediaReceiver {
    return new MediaReceiver({
      clock: systemClock,
      codec: new PipelineCodec(codec),
      payloadType: m.payloadType,
      ...(m.telephoneEventPayloadType !== undefined
        ? { telephoneEventPayloadType: m.telephoneEventPayloadType }
        : {}),
      ...(m.receive.jitter ? { jitter: m.receive.jitter } : {}),
      pacer: this.pacer,
      onAudio,
      onDigit: (d) => this.batch.digit(m.id, d),
      onDigitEnd: (d) => this.batch.digitEnd(m.id, d),
      onError: (err) => this.error(m.id, err),
    });
  }

  /** The session's sockets deliver to `incoming`; a bad packet costs one packet, never the worker. */
  private listen(session: Session): void {
    const receive = (onRtcpPort: boolean) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
      if (session.closed) return;
      try {
        this.incoming(session, msg, rinfo, onRtcpPort);
      } catch (err) {
        session.counters.malformed++;
        this.error(session.id, err);
      }
    };
    session.rtp.on('message', receive(false));
    session.rtp.on('error', (err) => {
      // A connect that failed (its error comes here): the session goes on sending with addresses.
      session.connecting = false;
      this.error(session.id, err);
    });
    session.rtcp?.on('message', receive(true));
    session.rtcp?.on('error', (err) => this.error(session.id, err));
  }

  /** One datagram on a session's sockets: RTCP to the main thread, RTP to the receiver. */
  private incoming(s: Session, datagram: Buffer, from: dgram.RemoteInfo, onRtcpPort: boolean): void {
    const got = takeDatagram(s, s.srtp, datagram, from, onRtcpPort);
    if (got === null) return;
    if (typeof got === 'object') return this.batch.rtcp(s.id, got.rtcp, from.address, from.port);
    if (got === 'latched') {
      this.batch.latch(s.id, from.address, from.port);
      this.aim(s);
    }
    s.counters.rtpIn++;
    s.receiver.handle(s.packet, performance.now());
  }

  /** A frame the session's jitter buffer played out: to the main thread, to a bridge, or both. */
  private played(s: Session, pcm: Int16Array, concealed: boolean, seq: number): void {
    const b = s.bridge;
    if (!s.audio && !b) return;
    // The batch copies the frame in at once. A bridge's peer keeps it in its queue, and the
    // decoder may reuse its frame buffer: the peer gets a copy of its own.
    if (s.audio) this.batch.frame(s.id, pcm, concealed, seq);
    if (!b) return;
    const copy = pcm.slice();
    if (b.port === null) return deliver(this.sessions.get(b.peer), copy, b.maxQueuedMs);
    const frame: BridgeFrame = { to: b.peer, pcm: copy };
    b.port.postMessage(frame, [copy.buffer as ArrayBuffer]);
  }

  /** Joins the session's played frames to `m.peer`'s sender, on this worker or over `m.port`. */
  private bridge(s: Session, m: Extract<ToWorker, { t: 'bridge' }>): void {
    unbridge(s);
    const bridge: Bridge = { peer: m.peer, port: m.port, maxQueuedMs: m.maxQueuedMs };
    s.bridge = bridge;
    m.port?.on('message', (f: BridgeFrame) => deliver(this.sessions.get(f.to), f.pcm, bridge.maxQueuedMs));
  }

  /**
   * Points the session's sends at the latching rule's destination. The RTP socket is connect()ed
   * to it (one per call, each socket its own port), so every send skips the address parsing and
   * lookup a send with an address does; RTCP on a separate socket and sends elsewhere use send-to.
   * A connected UDP socket only takes datagrams from its peer, so it stays unconnected until the
   * session has latched: before that, media from any source must still be seen.
   */
  private aim(s: Session): void {
    const to = s.latch.destination;
    s.to = to && sendablePort(to.port) ? { address: to.address, port: to.port } : null;
    const gen = ++s.aimGen;
    // The connect under way re-aims when it completes.
    if (s.connecting || s.closed) return;
    if (s.connected) {
      s.connected = false;
      try {
        s.rtp.disconnect();
      } catch {
        // Not connected after all: nothing to undo.
      }
    }
    if (!this.connectSockets || s.latch.latched === null || !s.to) return;
    s.connecting = true;
    try {
      s.rtp.connect(s.to.port, s.to.address, () => {
        s.connecting = false;
        if (s.closed) return;
        s.connected = true;
        // The destination changed while connecting: disconnect and aim again.
        if (s.aimGen !== gen) this.aim(s);
      });
    } catch {
      s.connecting = false;
    }
  }

  private transmit(s: Session, packet: Buffer): void {
    const to = s.to;
    const srtp = s.srtp;
    if (!to || s.closed || srtp === 'pending') return;
    s.rtpOut++;
    const out = srtp ? srtp.outbound.protectRtp(packet) : packet;
    try {
      if (s.connected) s.rtp.send(out);
      else s.rtp.send(out, to.port, to.address);
    } catch {
      // The socket's connect completed a tick before its callback said so: the frame is lost,
      // the next one goes over the connection.
    }
  }

  /** A compound RTCP packet the main thread built, protected and sent; `done` when it left. */
  private sendRtcp(s: Session, m: Extract<ToWorker, { t: 'rtcp' }>): void {
    const socket = s.rtcpMux ? s.rtp : s.rtcp;
    const srtp = s.srtp;
    const done = () => this.post({ t: 'done', id: m.id, req: m.req });
    if (!socket || srtp === 'pending' || !sendablePort(m.to.port)) return done();
    const compound = Buffer.from(m.packet.buffer, m.packet.byteOffset, m.packet.byteLength);
    const out = srtp ? srtp.outbound.protectRtcp(compound) : compound;
    // A connected socket refuses a send with an address: muxed RTCP to the latched peer
    // goes over the connection, anywhere else waits for none (rare: RTCP is every 5 s).
    const to = s.to;
    if (socket === s.rtp && s.connected && to && to.address === m.to.address && to.port === m.to.port) {
      socket.send(out, done);
    } else if (socket === s.rtp && s.connected) {
      done();
    } else {
      socket.send(out, m.to.port, m.to.address, done);
    }
  }

  private async close(s: Session): Promise<void> {
    s.closed = true;
    s.sender.stop();
    s.receiver.stop();
    unbridge(s);
    this.sessions.delete(s.id);
    await Promise.all([closeSocket(s.rtp), closeSocket(s.rtcp)]);
    if (this.sessions.size === 0 && this.flushTimer) {
      this.flush();
      clearInterval(this.flushTimer);
      this.flushTimer = null;
    }
    this.post({ t: 'closed', id: s.id });
  }
}

/** A bridged frame for `s`'s sender, unless its queue is over the bridge's limit. */
function deliver(s: Session | undefined, pcm: Int16Array, maxQueuedMs: number): void {
  if (!s || s.closed) return;
  if (s.sender.queuedMs > maxQueuedMs) s.bridgeDropped++;
  else {
    s.bridgedIn++;
    s.sender.enqueue(pcm);
  }
}

function unbridge(s: Session): void {
  const b = s.bridge;
  s.bridge = null;
  b?.port?.close();
}

/** A re-INVITE changed the format: both directions switch at once. */
function setCodec(s: Session, name: string, payloadType: number): void {
  const codec = createCodec(name, payloadType);
  if (!codec) throw new Error(`no codec for ${name}`);
  s.clockRate = codec.clockRate;
  s.receiver.setCodec(new PipelineCodec(codec), payloadType);
  s.sender.setCodec(new PipelineCodec(codec), payloadType);
}

/** The session's figures for the main thread's mirror (RemoteSender, RemoteReceiver, counters). */
function statsOf(s: Session, epochMs: number): WireStats {
  const r = s.receiver.reception;
  return {
    id: s.id,
    ...s.sender.stats,
    rtpOut: s.rtpOut,
    queuedMs: s.sender.queuedMs,
    gen: s.gen,
    received: s.received,
    rtpTimestamp: s.sender.timestampAt(performance.now()),
    clockRate: s.clockRate,
    epochMs,
    rx: { ...s.counters },
    receiver: { ...s.receiver.counters },
    jitter: { ...s.receiver.jitterBuffer.stats },
    remoteSsrc: s.receiver.ssrc,
    reception: r
      ? {
          valid: r.valid,
          expected: r.expected,
          received: r.received,
          extendedMax: r.extendedMax,
          cumulativeLost: r.cumulativeLost,
          jitter: r.jitter,
          jitterMs: r.jitterMs,
        }
      : null,
    srtpIn: s.srtp instanceof SrtpStreams ? { ...s.srtp.inbound.counters } : null,
    bridgedIn: s.bridgedIn,
    bridgeDropped: s.bridgeDropped,
  };
}

function fromWire(w: WireSrtp): SrtpParameters {
  return {
    suite: w.suite,
    localKey: Buffer.from(w.localKey.buffer, w.localKey.byteOffset, w.localKey.byteLength),
    remoteKey: Buffer.from(w.remoteKey.buffer, w.remoteKey.byteOffset, w.remoteKey.byteLength),
  };
}

function concat(parts: Int16Array[]): Int16Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Int16Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** This thread's id in the OS (Linux: /proc/thread-self names it), or null where there is none. */
function osThreadId(): number | null {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) ? id : null;
  } catch {
    return null;
  }
}
