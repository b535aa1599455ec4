// The SIP benchmark's media part (sip.bench.ts): SIP_BENCH_MEDIA_CALLS concurrent G.711 calls from
// SIP_BENCH_MEDIA_PEERS sipp processes, each answered with an RtpSession on one SharedPacer, media
// both ways through sipp's -rtp_echo, measured over SIP_BENCH_MEDIA_HOLD_S s: packets sent, back and
// late, the kernel's drops, memory per call, CPU and event-loop delay. MEDIA_WORKERS (default one
// per core, 0 = the main thread) puts the sessions' sockets, pacing and encoding on worker threads;
// SIP_BENCH_API=1 loads an API route on the main thread with autocannon over the same window.
// SIP_BENCH_CONNECT=0 sends with an address per packet instead of over connect()ed sockets.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { systemClock } from '../src/shared/clock.js';
import { G711Codec } from '../src/audio/codecs/g711.js';
import { RtpPortAllocator } from '../src/telephony/media/port-allocator.js';
import { RtpSession } from '../src/telephony/media/rtp-session.js';
import { SharedPacer } from '../src/telephony/media/shared-pacer.js';
import { MediaWorkerPool } from '../src/telephony/media/workers/media-worker-pool.js';
import { loadConfig } from '../src/config/config.js';
import { apiLoad, type ApiLoad } from './api-load.js';
import { answerOffer } from '../src/telephony/sip/sdp/answer.js';
import type { UasLeg } from '../src/telephony/sip/uas-leg.js';
import { answeringStack } from './sip-answering-stack.js';
import { freePort, scenario, sipp, stat } from './sip-sipp.js';

export const MEDIA_CALLS = Number(process.env.SIP_BENCH_MEDIA_CALLS ?? 500);
export const MEDIA_HOLD_S = Number(process.env.SIP_BENCH_MEDIA_HOLD_S ?? 10);
/** Calls set up per second while the media calls ramp up. */
export const MEDIA_RATE = Number(process.env.SIP_BENCH_MEDIA_RATE ?? 100);
/** sipp processes sharing the media calls, each with its own RTP echo socket. */
export const MEDIA_PEERS = Number(process.env.SIP_BENCH_MEDIA_PEERS ?? 4);
/** MEDIA_WORKERS as the service reads it. */
const mediaConfig = loadConfig({
  MEDIA_WORKERS: process.env.MEDIA_WORKERS,
  MEDIA_WORKER_NICE: process.env.MEDIA_WORKER_NICE,
}).sip;
export const WORKERS = mediaConfig.mediaWorkers;
/** The workers' asked-for nice value (MEDIA_WORKER_NICE, as the node reads it). */
export const NICE = mediaConfig.mediaWorkerNice;
export const API_LOAD = process.env.SIP_BENCH_API === '1';
export const CONNECT = process.env.SIP_BENCH_CONNECT !== '0';

export interface MediaRun {
  readonly calls: number;
  readonly held: number;
  readonly sent: number;
  readonly received: number;
  readonly late: number;
  readonly skippedFrames: number;
  /** Frames due with something to send that never went out (every stream's holes). */
  readonly neverSent: number;
  readonly api: { requests: number; p99Ms: number; errors: number } | null;
  readonly rssPerCall: number;
  readonly heapPerCall: number;
  readonly cpu: number;
  readonly delayP99: number;
  readonly peers: number;
  readonly sippOk: number;
  readonly sippFailed: number;
  /** Kernel receive-buffer drops over the window: at sipp's echo socket, and at our RTP sockets. */
  readonly droppedAtEcho: number;
  readonly droppedAtUs: number;
  /** The media workers' nice value, and why the asked one was refused (null: no workers). */
  readonly workerPriority: { nice: number; niceError: string | null } | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Datagrams the kernel dropped for want of receive buffer, per local UDP port (Linux only). */
function udpDrops(): Map<number, number> {
  const drops = new Map<number, number>();
  let table = '';
  try {
    table = readFileSync('/proc/net/udp', 'utf8');
  } catch {
    return drops;
  }
  for (const row of table.split('\n').slice(1)) {
    const f = row.trim().split(/\s+/);
    if (f.length < 13) continue;
    const port = parseInt(f[1].split(':')[1], 16);
    drops.set(port, (drops.get(port) ?? 0) + Number(f[12]));
  }
  return drops;
}

/** MEDIA_CALLS concurrent G.711 calls from sipp, media both ways through sipp's RTP echo. */
export async function media(): Promise<MediaRun> {
  const pacer = new SharedPacer(systemClock);
  const workers =
    WORKERS > 0 ? await MediaWorkerPool.start(WORKERS, { connectSockets: CONNECT, nice: NICE }) : null;
  const api = API_LOAD ? await apiLoad() : null;
  const side = await answeringSide(pacer, workers);
  const collect = fullCollection();
  const { rss: rss0, heapUsed: heap0 } = collect();
  const peers = await echoPeers();
  const runs = peers.map((peer) => sippPeer(peer, side.port));
  const started = Promise.all(runs);
  const held = await callsUp(side, runs);
  await sleep(2000); // settle: jitter buffers filled, timers in step
  const mem = collect();
  const skipped0 = pacer.skipped + (workers?.skipped ?? 0);
  const window = await holdWindow(side.sessions, peers, api);
  for (const leg of side.legs) leg.bye();
  const outs = (await started).map((r) => r.out);
  await Promise.all(side.sessions.map((s) => s.close()));
  await side.stack.close();
  await api?.close();
  await workers?.close();
  if (side.frames === 0) throw new Error('no audio frames played out');
  return {
    calls: MEDIA_CALLS,
    held,
    ...window,
    skippedFrames: pacer.skipped + (workers?.skipped ?? 0) - skipped0,
    rssPerCall: (mem.rss - rss0) / Math.max(1, held),
    heapPerCall: (mem.heapUsed - heap0) / Math.max(1, held),
    peers: MEDIA_PEERS,
    sippOk: outs.reduce((t, o) => t + stat(o, 'Successful call'), 0),
    sippFailed: outs.reduce((t, o) => t + stat(o, 'Failed call'), 0),
    workerPriority: workers?.priority ?? null,
  };
}

/** Our side of the calls: a stack that answers every INVITE with an RtpSession. */
interface AnsweringSide {
  stack: { close(): Promise<void> };
  port: number;
  sessions: RtpSession[];
  legs: UasLeg[];
  setupErrors: number;
  /** Audio frames played out, over all calls. */
  frames: number;
}

async function answeringSide(pacer: SharedPacer, workers: MediaWorkerPool | null): Promise<AnsweringSide> {
  const ports = new RtpPortAllocator(20000, 20000 + 4 * MEDIA_CALLS + 1000);
  const side: Omit<AnsweringSide, 'stack' | 'port'> = { sessions: [], legs: [], setupErrors: 0, frames: 0 };
  const answer = async (leg: UasLeg, offer: string): Promise<void> => {
    const session = new RtpSession({
      clock: systemClock,
      ports,
      host: '127.0.0.1',
      codec: new G711Codec('ulaw'),
      pacer,
      ...(workers ? { workers } : {}),
      onAudio: () => void side.frames++,
    });
    side.sessions.push(session);
    const rtpPort = await session.bind();
    const a = answerOffer(
      offer,
      { address: '127.0.0.1', port: rtpPort, codecs: ['PCMU'] },
      { sessionId: String(side.sessions.length), sessionVersion: 1, address: '127.0.0.1' },
    );
    if (!a.ok) throw new Error(a.why);
    session.setRemote({ address: a.audio.remoteAddress, port: a.audio.remotePort });
    leg.answer(a.sdp);
    session.start();
  };
  const { stack, port } = await answeringStack('m', (leg, req) => {
    side.legs.push(leg);
    answer(leg, new TextDecoder().decode(req.body)).catch(() => {
      side.setupErrors++;
      leg.reject(500, 'Server Internal Error');
    });
  });
  return Object.assign(side, { stack, port });
}

/**
 * Memory after full collections (npm run bench:sip runs node with --expose-gc), so the figure per
 * call is what the calls hold, not garbage that happened to be pending.
 */
function fullCollection(): () => NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:sip does)');
  return () => {
    gc();
    gc();
    return process.memoryUsage();
  };
}

/** One sipp UAC: its share of the calls, and the port its RTP echo listens on. */
interface EchoPeer {
  calls: number;
  echoPort: number;
}

/**
 * Several sipp UACs share the calls: one sipp echoes every packet of its calls on one socket in
 * one thread, and that socket's receive buffer, not our side, is what overflows first.
 */
async function echoPeers(): Promise<EchoPeer[]> {
  const peers = Array.from({ length: MEDIA_PEERS }, (_, i) => ({
    calls: Math.floor(MEDIA_CALLS / MEDIA_PEERS) + (i < MEDIA_CALLS % MEDIA_PEERS ? 1 : 0),
    echoPort: 0,
  }));
  for (const peer of peers) peer.echoPort = await freePort();
  return peers;
}

/** A sipp UAC placing its calls to our port, holding them, echoing their RTP. */
async function sippPeer(peer: EchoPeer, port: number): Promise<{ code: number | null; out: string }> {
  return sipp([
    '-sf',
    scenario('bench-uac-media-hold.xml'),
    `127.0.0.1:${port}`,
    '-i',
    '127.0.0.1',
    '-p',
    String(await freePort()),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(peer.echoPort),
    '-rtp_echo',
    '-rtp_buffsize',
    String(4 * 1024 * 1024),
    '-r',
    String(Math.max(1, Math.round((MEDIA_RATE * peer.calls) / MEDIA_CALLS))),
    '-m',
    String(peer.calls),
    '-l',
    String(peer.calls),
    '-nostdin',
    '-timeout',
    `${Math.ceil(MEDIA_CALLS / MEDIA_RATE) + MEDIA_HOLD_S + 120}s`,
  ]);
}

/** Waits until every call is up (its ACK in) or sipp gave up; the calls held. */
async function callsUp(side: AnsweringSide, runs: Promise<unknown>[]): Promise<number> {
  // Any sipp ending before its calls are up has given up (a bind failure, a timeout).
  let sippDone = false;
  for (const r of runs) void r.then(() => (sippDone = true));
  while (side.legs.filter((l) => l.acked).length + side.setupErrors < MEDIA_CALLS && !sippDone)
    await sleep(100);
  return side.legs.filter((l) => l.acked).length;
}

/** What the hold window measured. */
type WindowFigures = Pick<
  MediaRun,
  'sent' | 'received' | 'late' | 'neverSent' | 'api' | 'cpu' | 'delayP99' | 'droppedAtEcho' | 'droppedAtUs'
>;

/** MEDIA_HOLD_S s of media both ways (and the API load): what went out, came back, was lost. */
async function holdWindow(
  sessions: RtpSession[],
  peers: EchoPeer[],
  api: ApiLoad | null,
): Promise<WindowFigures> {
  const sum = (f: (s: RtpSession) => number) => sessions.reduce((t, s) => t + f(s), 0);
  const sent0 = sum((s) => s.sender.stats.packets);
  const recv0 = sum((s) => s.counters.rtpIn);
  const late0 = sum((s) => s.receiver.jitterBuffer.stats.late);
  const holes0 = sum((s) => s.sender.stats.holeFrames);
  const drops = kernelDrops(sessions, peers);
  const drops0 = drops();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const [apiResult] = await Promise.all([api?.run(MEDIA_HOLD_S) ?? null, sleep(MEDIA_HOLD_S * 1000)]);
  // Stop sending, let the last echoes come home, then count.
  for (const s of sessions) s.setDirection('recvonly');
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  delay.disable();
  // Long enough for the workers' figures (sent every 100 ms) to include the last frames.
  await sleep(500);
  const sent = sum((s) => s.sender.stats.packets) - sent0;
  const received = sum((s) => s.counters.rtpIn) - recv0;
  const late = sum((s) => s.receiver.jitterBuffer.stats.late) - late0;
  const drops1 = drops();
  const neverSent = sum((s) => s.sender.stats.holeFrames) - holes0;
  return {
    sent,
    received,
    late,
    neverSent,
    api: apiResult,
    cpu: (cpu.user + cpu.system) / 1e6 / seconds,
    delayP99: delay.percentile(99) / 1e6,
    droppedAtEcho: drops1.echo - drops0.echo,
    droppedAtUs: drops1.ours - drops0.ours,
  };
}

/** The kernel's drops so far at the peers' echo sockets and at our RTP sockets. */
function kernelDrops(sessions: RtpSession[], peers: EchoPeer[]): () => { echo: number; ours: number } {
  const ourPorts = new Set(sessions.map((s) => s.localPort));
  return () => {
    const d = udpDrops();
    let ours = 0;
    for (const [p, n] of d) if (ourPorts.has(p)) ours += n;
    const echo = peers.reduce((t, p) => t + (d.get(p.echoPort) ?? 0), 0);
    return { echo, ours };
  };
}
