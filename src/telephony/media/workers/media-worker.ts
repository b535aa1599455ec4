// A media worker's side: it owns the UDP sockets of the sessions given to it and both halves of
// their media, on a frame timer of its own (one SharedPacer per worker). Sending: pacing,
// resampling, encoding, RFC 4733, SRTP. Receiving: SRTP unprotect, the latching rule, the jitter
// buffer, decoding and digits. A bridge between two sessions (a transfer's or a dial's two legs)
// passes each side's decoded frames straight to the other's sender, within this worker or over a
// MessageChannel to the other's. The main thread gets, once per 20 ms, the decoded audio of the
// sessions it listens to, key presses, latch changes, RTCP datagrams and figures. Nothing here
// waits on the main thread, so a busy main loop cannot delay or skip a frame.
import dgram from 'node:dgram';
import { readlinkSync } from 'node:fs';
import { isIP } from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import { systemClock } from '../../../shared/clock.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import { PipelineCodec } from '../../../audio/codecs/pipeline-codec.js';
import type { DigitEnd, DigitEvent } from '../dtmf.js';
import { Latch, sendablePort } from '../latch.js';
import { isRtcp, parseRtcp } from '../rtcp.js';
import { decodeRtp, RtpPacket, RtpStatus } from '../rtp-packet.js';
import { MediaReceiver } from '../rtp-receiver.js';
import { RtpSender } from '../rtp-sender.js';
import { SharedPacer } from '../shared-pacer.js';
import { SrtpStreams, type SrtpParameters } from '../srtp/srtp-streams.js';
import type {
  BridgeFrame,
  FromWorker,
  OpenSession,
  ToWorker,
  WireDatagram,
  WireFrame,
  WireRxCounters,
  WireSrtp,
  WireStats,
} from './protocol.js';

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
  rx: WireRxCounters;
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
 * turns it off, for measuring against send-to).
 */
export function runMediaWorker(port: MessagePort, connectSockets = true): void {
  const sessions = new Map<number, Session>();
  // A stall here is the OS's (a loaded machine), not our code's: catch up to 200 ms of frames late
  // rather than leave holes, the far end's jitter buffer absorbs most of them.
  const pacer = new SharedPacer(systemClock, 20, CATCH_UP_FRAMES);
  let rx: { id: number; data: Buffer; address: string; port: number }[] = [];
  let rxBytes = 0;
  let frames: { id: number; pcm: Int16Array; concealed: boolean; seq: number }[] = [];
  let frameSamples = 0;
  let digits: [number, DigitEvent][] = [];
  let digitEnds: [number, DigitEnd][] = [];
  let latched: [number, string, number][] = [];
  const packet = new RtpPacket();
  let flushes = 0;
  let flushTimer: NodeJS.Timeout | null = null;

  const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
  const error = (id: number, err: unknown) =>
    post({ t: 'error', id, message: (err as Error).message ?? String(err) });

  const flush = () => {
    const statsDue = ++flushes % STATS_EVERY === 0;
    const sent: [number, Int16Array][] = [];
    for (const s of sessions.values()) {
      if (s.tap && s.tap.length > 0) {
        sent.push([s.id, concat(s.tap)]);
        s.tap = [];
      }
    }
    if (
      rx.length === 0 &&
      sent.length === 0 &&
      frames.length === 0 &&
      digits.length === 0 &&
      digitEnds.length === 0 &&
      latched.length === 0 &&
      !statsDue
    ) {
      return;
    }
    let data: ArrayBuffer | null = null;
    const entries: WireDatagram[] = [];
    if (rx.length > 0) {
      // One buffer for the whole batch: a transfer list of thousands of buffers costs more.
      const all = new Uint8Array(rxBytes);
      let offset = 0;
      for (const d of rx) {
        all.set(d.data, offset);
        entries.push([d.id, offset, d.data.length, d.address, d.port]);
        offset += d.data.length;
      }
      data = all.buffer;
      rx = [];
      rxBytes = 0;
    }
    let pcm: Int16Array | null = null;
    const wireFrames: WireFrame[] = [];
    if (frames.length > 0) {
      pcm = new Int16Array(frameSamples);
      let at = 0;
      for (const f of frames) {
        pcm.set(f.pcm, at);
        wireFrames.push([f.id, at, f.pcm.length, f.concealed ? 1 : 0, f.seq]);
        at += f.pcm.length;
      }
      frames = [];
      frameSamples = 0;
    }
    const stats: WireStats[] = [];
    if (statsDue) {
      const epochMs = performance.timeOrigin + performance.now();
      for (const s of sessions.values()) {
        const r = s.receiver.reception;
        stats.push({
          id: s.id,
          ...s.sender.stats,
          rtpOut: s.rtpOut,
          queuedMs: s.sender.queuedMs,
          gen: s.gen,
          received: s.received,
          rtpTimestamp: s.sender.timestampAt(performance.now()),
          clockRate: s.clockRate,
          epochMs,
          rx: { ...s.rx },
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
        });
      }
    }
    const transfer: ArrayBuffer[] = data ? [data] : [];
    if (pcm) transfer.push(pcm.buffer as ArrayBuffer);
    for (const [, p] of sent) transfer.push(p.buffer as ArrayBuffer);
    post(
      {
        t: 'batch',
        data,
        rtcp: entries,
        pcm,
        frames: wireFrames,
        digits,
        digitEnds,
        latched,
        stats,
        sent,
        ticks: pacer.ticks,
      },
      transfer,
    );
    digits = [];
    digitEnds = [];
    latched = [];
  };

  const ensureFlushing = () => {
    if (!flushTimer) flushTimer = setInterval(flush, 20);
  };

  const open = async (m: OpenSession) => {
    const type = isIP(m.host) === 6 ? 'udp6' : 'udp4';
    let rtp: dgram.Socket | null = null;
    let rtcp: dgram.Socket | null = null;
    try {
      rtp = await bindSocket(type, m.host, m.port);
      if (!m.rtcpMux) rtcp = await bindSocket(type, m.host, m.port + 1);
    } catch (err) {
      rtp?.close();
      post({
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
      post({ t: 'opened', id: m.id, error: `no codec for ${m.codec}` });
      return;
    }
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
      rx: { rtpIn: 0, rtcpIn: 0, malformed: 0, stray: 0, srtpDropped: 0 },
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
      sender: new RtpSender({
        clock: systemClock,
        codec: new PipelineCodec(codec),
        ssrc: m.ssrc,
        sequence: m.sequence,
        timestamp: m.timestamp,
        payloadType: m.payloadType,
        telephoneEventPayloadType: m.telephoneEventPayloadType,
        idle: m.idle,
        pacer,
        transmit: (b) => transmit(session, b),
        onError: (err) => error(m.id, err),
      }),
      receiver: new MediaReceiver({
        clock: systemClock,
        codec: new PipelineCodec(codec),
        payloadType: m.payloadType,
        ...(m.telephoneEventPayloadType !== undefined
          ? { telephoneEventPayloadType: m.telephoneEventPayloadType }
          : {}),
        ...(m.receive.jitter ? { jitter: m.receive.jitter } : {}),
        pacer,
        onAudio: (pcm, info) => played(session, pcm, info.concealed, info.sequence),
        onDigit: (d) => void digits.push([m.id, d]),
        onDigitEnd: (d) => void digitEnds.push([m.id, d]),
        onError: (err) => error(m.id, err),
      }),
    };
    session.sender.onSent = (pcm) => session.tap?.push(pcm);
    aim(session);
    const receive = (onRtcpPort: boolean) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
      if (session.closed) return;
      try {
        incoming(session, msg, rinfo.address, rinfo.port, onRtcpPort);
      } catch (err) {
        // A bad packet costs one packet, never the worker.
        session.rx.malformed++;
        error(m.id, err);
      }
    };
    rtp.on('message', receive(false));
    rtp.on('error', (err) => {
      // A connect that failed (its error comes here): the session goes on sending with addresses.
      session.connecting = false;
      error(m.id, err);
    });
    rtcp?.on('message', receive(true));
    rtcp?.on('error', (err) => error(m.id, err));
    sessions.set(m.id, session);
    ensureFlushing();
    post({ t: 'opened', id: m.id });
  };

  /** One datagram on a session's sockets: SRTP, then RTCP to the main thread or RTP to the receiver. */
  const incoming = (s: Session, datagram: Buffer, address: string, port: number, onRtcpPort: boolean) => {
    const rtcp = onRtcpPort || isRtcp(datagram);
    let msg = datagram;
    const srtp = s.srtp;
    if (srtp !== null) {
      const plain =
        srtp === 'pending' ? null : rtcp ? srtp.inbound.unprotectRtcp(msg) : srtp.inbound.unprotectRtp(msg);
      if (!plain) {
        s.rx.srtpDropped++;
        return;
      }
      msg = plain;
    }
    if (rtcp) {
      if (!parseRtcp(msg)) {
        s.rx.malformed++;
        return;
      }
      // RTCP can end a call (BYE): take it only from the host media is latched to.
      if (!s.latch.acceptsRtcpFrom(address)) {
        s.rx.stray++;
        return;
      }
      s.rx.rtcpIn++;
      s.latch.rtcpArrived(address, port);
      rx.push({ id: s.id, data: msg, address, port });
      rxBytes += msg.length;
      return;
    }
    if (decodeRtp(msg, packet) !== RtpStatus.Ok) {
      s.rx.malformed++;
      return;
    }
    const verdict = s.latch.accept(address, port);
    if (verdict === 'stray') {
      s.rx.stray++;
      return;
    }
    if (verdict === 'latched') {
      latched.push([s.id, address, port]);
      aim(s);
    }
    s.rx.rtpIn++;
    s.receiver.handle(packet, performance.now());
  };

  /** A frame the session's jitter buffer played out: to the main thread, to a bridge, or both. */
  const played = (s: Session, pcm: Int16Array, concealed: boolean, seq: number) => {
    if (s.audio) {
      // The decoder may reuse its frame buffer.
      frames.push({ id: s.id, pcm: pcm.slice(), concealed, seq });
      frameSamples += pcm.length;
    }
    const b = s.bridge;
    if (!b) return;
    if (b.port === null) {
      const peer = sessions.get(b.peer);
      if (peer) deliver(peer, pcm.slice(), b.maxQueuedMs);
    } else {
      const copy = pcm.slice();
      const frame: BridgeFrame = { to: b.peer, pcm: copy };
      b.port.postMessage(frame, [copy.buffer as ArrayBuffer]);
    }
  };

  /** A bridged frame for `s`'s sender, unless its queue is over the bridge's limit. */
  const deliver = (s: Session | undefined, pcm: Int16Array, maxQueuedMs: number) => {
    if (!s || s.closed) return;
    if (s.sender.queuedMs > maxQueuedMs) s.bridgeDropped++;
    else {
      s.bridgedIn++;
      s.sender.enqueue(pcm);
    }
  };

  /**
   * Points the session's sends at the latching rule's destination. The RTP socket is connect()ed
   * to it (one per call, each socket its own port), so every send skips the address parsing and
   * lookup a send with an address does; RTCP on a separate socket and sends elsewhere use send-to.
   * A connected UDP socket only takes datagrams from its peer, so it stays unconnected until the
   * session has latched: before that, media from any source must still be seen.
   */
  const aim = (s: Session): void => {
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
    if (!connectSockets || s.latch.latched === null || !s.to) return;
    s.connecting = true;
    try {
      s.rtp.connect(s.to.port, s.to.address, () => {
        s.connecting = false;
        if (s.closed) return;
        s.connected = true;
        // The destination changed while connecting: disconnect and aim again.
        if (s.aimGen !== gen) aim(s);
      });
    } catch {
      s.connecting = false;
    }
  };

  const transmit = (s: Session, packet: Buffer) => {
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
  };

  const unbridge = (s: Session) => {
    const b = s.bridge;
    s.bridge = null;
    b?.port?.close();
  };

  const close = async (s: Session) => {
    s.closed = true;
    s.sender.stop();
    s.receiver.stop();
    unbridge(s);
    sessions.delete(s.id);
    await Promise.all([closeSocket(s.rtp), closeSocket(s.rtcp)]);
    if (sessions.size === 0 && flushTimer) {
      flush();
      clearInterval(flushTimer);
      flushTimer = null;
    }
    post({ t: 'closed', id: s.id });
  };

  port.on('message', (m: ToWorker) => {
    if (m.t === 'open') return void open(m);
    const s = sessions.get(m.id);
    if (!s) {
      // A digit request on a session already gone still has a caller waiting.
      if (m.t === 'digits' || m.t === 'rtcp') post({ t: 'done', id: m.id, req: m.req });
      return;
    }
    try {
      switch (m.t) {
        case 'start':
          s.sender.start();
          return s.receiver.start();
        case 'remote':
          s.latch.setRemote(m.remote);
          return aim(s);
        case 'bridge': {
          unbridge(s);
          const bridge: Bridge = { peer: m.peer, port: m.port, maxQueuedMs: m.maxQueuedMs };
          s.bridge = bridge;
          m.port?.on('message', (f: BridgeFrame) => deliver(sessions.get(f.to), f.pcm, bridge.maxQueuedMs));
          return;
        }
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
        case 'codec': {
          const codec = createCodec(m.codec, m.payloadType);
          if (!codec) throw new Error(`no codec for ${m.codec}`);
          s.clockRate = codec.clockRate;
          s.receiver.setCodec(new PipelineCodec(codec), m.payloadType);
          return s.sender.setCodec(new PipelineCodec(codec), m.payloadType);
        }
        case 'te':
          s.receiver.setTelephoneEventPayloadType(m.payloadType);
          return s.sender.setTelephoneEventPayloadType(m.payloadType);
        case 'digits':
          return void s.sender
            .sendDigits(m.digits, m.options)
            .then(() => post({ t: 'done', id: m.id, req: m.req }));
        case 'srtp':
          if (!m.srtp) s.srtp = null;
          else if (s.srtp instanceof SrtpStreams) s.srtp.rekey(fromWire(m.srtp));
          else s.srtp = SrtpStreams.create(fromWire(m.srtp));
          return;
        case 'tap':
          s.tap = m.on ? [] : null;
          return;
        case 'rtcp': {
          const socket = s.rtcpMux ? s.rtp : s.rtcp;
          const srtp = s.srtp;
          const done = () => post({ t: 'done', id: m.id, req: m.req });
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
          return;
        }
        case 'close':
          return void close(s);
      }
    } catch (err) {
      error(m.id, err);
    }
  });
  post({ t: 'ready', thread: osThreadId() });
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
