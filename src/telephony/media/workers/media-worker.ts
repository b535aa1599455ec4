// A media worker's side: it owns the UDP sockets of the sessions given to it, paces and encodes
// what each one plays on a frame timer of its own (one SharedPacer per worker), protects it with
// SRTP, and hands every datagram that arrives back to the main thread in one batch per frame.
// Nothing here waits on the main thread, so a busy main loop cannot delay or skip a frame.
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import { systemClock } from '../../../shared/clock.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import { PipelineCodec } from '../../../audio/codecs/pipeline-codec.js';
import { RtpSender } from '../rtp-sender.js';
import { SharedPacer } from '../shared-pacer.js';
import { SrtpStreams, type SrtpParameters } from '../srtp/srtp-streams.js';
import type {
  FromWorker,
  OpenSession,
  ToWorker,
  WireAddress,
  WireDatagram,
  WireSrtp,
  WireStats,
} from './protocol.js';

/** Stats go with every fifth batch: 100 ms old at most, which is all a queue estimate needs. */
const STATS_EVERY = 5;
/** Frames a worker's timer sends at once after a stall before it skips the older ones. */
const CATCH_UP_FRAMES = 10;

interface Session {
  id: number;
  rtp: dgram.Socket;
  rtcp: dgram.Socket | null;
  rtcpMux: boolean;
  sender: RtpSender;
  to: WireAddress | null;
  srtp: SrtpStreams | 'pending' | null;
  rtpOut: number;
  clockRate: number;
  tap: Int16Array[] | null;
  gen: number;
  received: number;
  closed: boolean;
}

export function runMediaWorker(port: MessagePort): void {
  const sessions = new Map<number, Session>();
  // A stall here is the OS's (a loaded machine), not our code's: catch up to 200 ms of frames late
  // rather than leave holes, the far end's jitter buffer absorbs most of them.
  const pacer = new SharedPacer(systemClock, 20, CATCH_UP_FRAMES);
  let rx: { id: number; data: Buffer; address: string; port: number; rtcp: boolean }[] = [];
  let rxBytes = 0;
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
    if (rx.length === 0 && sent.length === 0 && !statsDue) return;
    let data: ArrayBuffer | null = null;
    const entries: WireDatagram[] = [];
    if (rx.length > 0) {
      // One buffer for the whole batch: a transfer list of thousands of buffers costs more.
      const all = new Uint8Array(rxBytes);
      let offset = 0;
      for (const d of rx) {
        all.set(d.data, offset);
        entries.push([d.id, offset, d.data.length, d.address, d.port, d.rtcp ? 1 : 0]);
        offset += d.data.length;
      }
      data = all.buffer;
      rx = [];
      rxBytes = 0;
    }
    const stats: WireStats[] = [];
    if (statsDue) {
      const epochMs = performance.timeOrigin + performance.now();
      for (const s of sessions.values()) {
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
        });
      }
    }
    const transfer: ArrayBuffer[] = data ? [data] : [];
    for (const [, pcm] of sent) transfer.push(pcm.buffer as ArrayBuffer);
    post({ t: 'batch', data, rx: entries, stats, sent, ticks: pacer.ticks }, transfer);
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
    const session: Session = {
      id: m.id,
      rtp,
      rtcp,
      rtcpMux: m.rtcpMux,
      to: null,
      srtp: m.srtp === 'pending' ? 'pending' : m.srtp ? SrtpStreams.create(fromWire(m.srtp)) : null,
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
    };
    session.sender.onSent = (pcm) => session.tap?.push(pcm);
    const receive = (onRtcpPort: boolean) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
      if (session.closed) return;
      rx.push({ id: m.id, data: msg, address: rinfo.address, port: rinfo.port, rtcp: onRtcpPort });
      rxBytes += msg.length;
    };
    rtp.on('message', receive(false));
    rtp.on('error', (err) => error(m.id, err));
    rtcp?.on('message', receive(true));
    rtcp?.on('error', (err) => error(m.id, err));
    sessions.set(m.id, session);
    ensureFlushing();
    post({ t: 'opened', id: m.id });
  };

  const transmit = (s: Session, packet: Buffer) => {
    const to = s.to;
    const srtp = s.srtp;
    if (!to || s.closed || !sendablePort(to.port) || srtp === 'pending') return;
    s.rtpOut++;
    s.rtp.send(srtp ? srtp.outbound.protectRtp(packet) : packet, to.port, to.address);
  };

  const close = async (s: Session) => {
    s.closed = true;
    s.sender.stop();
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
          return s.sender.start();
        case 'dest':
          s.to = m.to;
          return;
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
          return s.sender.setCodec(new PipelineCodec(codec), m.payloadType);
        }
        case 'te':
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
          const packet = Buffer.from(m.packet.buffer, m.packet.byteOffset, m.packet.byteLength);
          socket.send(srtp ? srtp.outbound.protectRtcp(packet) : packet, m.to.port, m.to.address, done);
          return;
        }
        case 'close':
          return void close(s);
      }
    } catch (err) {
      error(m.id, err);
    }
  });
  post({ t: 'ready' });
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

function sendablePort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port < 65536;
}
