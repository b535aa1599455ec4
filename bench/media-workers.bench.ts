// What one media worker thread spends per RTP packet, both directions, for plain G.711 calls:
// MEDIA_LOAD_CALLS sessions on one MediaWorkerPool, joined in pairs over loopback (each session's
// peer is another session, so every packet is sent and received by the workers and nothing else
// needs CPU), held for MEDIA_LOAD_S seconds. The workers' CPU is read per OS thread (/proc), and
// divided by the packets they sent and received.
//
// Baseline, measured in the same run over as many socket pairs: a bare worker thread that sends a
// 172-byte datagram on every connected socket each 20 ms from one timer and counts what arrives,
// the floor of any per-packet work in Node (the sockets alone). The media rows print their ratio
// against it.
//   npm run bench:media-workers    (MEDIA_LOAD_CALLS=400 MEDIA_LOAD_S=10 MEDIA_LOAD_WORKERS=1)
// MEDIA_LOAD_LISTEN=0: no session has onAudio (nothing on the main thread listens); default both.
// MEDIA_LOAD_AUDIO=1: every session plays a tone all along (queued a second at a time), so both
// resamplings and the codec work on real samples; by default the sessions send idle silence,
// which the resampler passes at almost no cost.
// Run with node --cpu-prof --cpu-prof-dir=DIR to profile the worker threads as well (each thread
// writes its own .cpuprofile; bench/cpu-profile-summary.js reads them).
import { readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../src/shared/clock.js';
import { G711Codec } from '../src/audio/codecs/g711.js';
import { RtpPortAllocator } from '../src/telephony/media/port-allocator.js';
import { RtpSession } from '../src/telephony/media/rtp-session.js';
import { MediaWorkerPool } from '../src/telephony/media/workers/media-worker-pool.js';
import { threadCpuMs } from './thread-cpu.js';

const CALLS = 2 * Math.round(Number(process.env.MEDIA_LOAD_CALLS ?? 400) / 2);
const HOLD_S = Number(process.env.MEDIA_LOAD_S ?? 10);
const WORKERS = Number(process.env.MEDIA_LOAD_WORKERS ?? 1);
const LISTEN = process.env.MEDIA_LOAD_LISTEN;
const AUDIO = process.env.MEDIA_LOAD_AUDIO === '1';
/** One second of a 440 Hz tone at the pipeline's 16 kHz. */
const TONE = Int16Array.from({ length: 16000 }, (_, i) =>
  Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  packets: number;
  cpuMs: number;
  seconds: number;
}

function report(name: string, f: Figures, baseline: Figures | null): void {
  const pps = f.packets / f.seconds;
  const usPerPacket = (f.cpuMs * 1000) / Math.max(1, f.packets);
  const ratio = baseline
    ? ` ${(usPerPacket / ((baseline.cpuMs * 1000) / baseline.packets)).toFixed(2)}x baseline`
    : '';
  console.log(
    `${name.padEnd(40)} ${Math.round(pps).toString().padStart(7)} packets/s  ` +
      `${((f.cpuMs / f.seconds) * 0.1).toFixed(1).padStart(5)}% of a core  ${usPerPacket.toFixed(2).padStart(6)} µs/packet${ratio}`,
  );
}

// The baseline thread: pairs of connected UDP sockets, one 20 ms timer sending on all of them.
const BARE = `
const dgram = require('node:dgram');
const { parentPort, workerData } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
const sockets = [];
let received = 0, sent = 0;
const packet = Buffer.alloc(172, 0xff);
const bind = () => new Promise((r) => { const s = dgram.createSocket('udp4'); s.bind(0, '127.0.0.1', () => r(s)); });
(async () => {
  for (let i = 0; i < workerData.calls; i += 2) {
    const a = await bind(), b = await bind();
    await new Promise((r) => a.connect(b.address().port, '127.0.0.1', r));
    await new Promise((r) => b.connect(a.address().port, '127.0.0.1', r));
    for (const s of [a, b]) { s.on('message', (m) => { received += m.length > 0 ? 1 : 0; }); sockets.push(s); }
  }
  const timer = setInterval(() => { for (const s of sockets) { s.send(packet); sent++; } }, 20);
  parentPort.on('message', (m) => {
    if (m === 'count') parentPort.postMessage({ packets: sent + received });
    else { clearInterval(timer); for (const s of sockets) s.close(); parentPort.close(); }
  });
  parentPort.postMessage({ thread: Number(readlinkSync('/proc/thread-self').split('/').pop()) });
})();
`;

async function bare(): Promise<Figures> {
  const w = new Worker(BARE, { eval: true, workerData: { calls: CALLS } });
  const next = () => new Promise<{ thread?: number; packets?: number }>((r) => w.once('message', r));
  const { thread } = await next();
  await sleep(1000);
  const count = async () => {
    w.postMessage('count');
    return (await next()).packets!;
  };
  const p0 = await count();
  const c0 = threadCpuMs(thread!);
  const t0 = performance.now();
  await sleep(HOLD_S * 1000);
  const cpuMs = threadCpuMs(thread!) - c0;
  const packets = (await count()) - p0;
  const seconds = (performance.now() - t0) / 1000;
  w.postMessage('stop');
  await new Promise((r) => w.once('exit', r));
  return { packets, cpuMs, seconds };
}

/** What a user would hear of the run: frames whose time passed unsent, and packets lost on loopback. */
interface Delivery {
  sent: number;
  received: number;
  holes: number;
}

async function media(listen: boolean): Promise<Figures & Delivery> {
  const pool = await MediaWorkerPool.start(WORKERS);
  const ports = new RtpPortAllocator(30000, 30000 + 4 * CALLS + 100);
  const sessions: RtpSession[] = [];
  for (let i = 0; i < CALLS; i += 2) {
    const pair = [0, 1].map(
      () =>
        new RtpSession({
          clock: systemClock,
          ports,
          host: '127.0.0.1',
          codec: new G711Codec('ulaw'),
          workers: pool,
          rtcpMux: true,
          ...(listen ? { onAudio: () => undefined } : {}),
        }),
    );
    const [a, b] = pair as [RtpSession, RtpSession];
    const [pa, pb] = await Promise.all([a.bind(), b.bind()]);
    a.setRemote({ address: '127.0.0.1', port: pb });
    b.setRemote({ address: '127.0.0.1', port: pa });
    a.start();
    b.start();
    sessions.push(a, b);
  }
  // Keeps about two seconds queued on every session while the run lasts.
  const playing = AUDIO ? setInterval(() => sessions.forEach((s) => s.enqueue(TONE)), 1000) : null;
  for (const s of AUDIO ? sessions : []) {
    s.enqueue(TONE);
    s.enqueue(TONE);
  }
  await sleep(2000); // latched, connected, jitter buffers filled
  const sum = (f: (s: RtpSession) => number) => sessions.reduce((t, s) => t + f(s), 0);
  const packetsNow = () => sum((s) => s.sender.stats.packets + s.counters.rtpIn);
  const threads = pool.osThreads;
  const cpuNow = () => threads.reduce((t, id) => t + threadCpuMs(id), 0);
  const p0 = packetsNow();
  const s0 = sum((s) => s.sender.stats.packets);
  const r0 = sum((s) => s.counters.rtpIn);
  const h0 = sum((s) => s.sender.stats.holeFrames);
  const c0 = cpuNow();
  const t0 = performance.now();
  await sleep(HOLD_S * 1000);
  const cpuMs = cpuNow() - c0;
  const seconds = (performance.now() - t0) / 1000;
  // The figures come every 100 ms: the packets counted are the window's, give or take a batch.
  const packets = packetsNow() - p0;
  const holes = sum((s) => s.sender.stats.holeFrames) - h0;
  const sent = sum((s) => s.sender.stats.packets) - s0;
  const received = sum((s) => s.counters.rtpIn) - r0;
  if (playing) clearInterval(playing);
  await Promise.all(sessions.map((s) => s.close()));
  await pool.close();
  return { packets, cpuMs, seconds, holes, sent, received };
}

async function main(): Promise<void> {
  // The pool's threads are unref()ed: a reply awaited from them alone would let the process exit.
  const keepAlive = setInterval(() => undefined, 1000);
  console.log(
    `${CALLS} G.711 sessions in loopback pairs on ${WORKERS} media worker(s), ${HOLD_S} s each, ` +
      `${AUDIO ? 'playing a tone' : 'sending idle silence'}; ` +
      `osThread CPU from /proc. Own process: ${readlinkSync('/proc/self').toString()}`,
  );
  const base = await bare();
  report('baseline: bare connected UDP sockets', base, null);
  for (const listen of LISTEN === undefined ? [true, false] : [LISTEN === '1']) {
    const m = await media(listen);
    report(`media workers, ${listen ? 'main thread listens' : 'nobody listens'}`, m, base);
    // Always printed: a low µs/packet bought by frames never sent or lost would be no gain.
    const due = m.sent + m.holes;
    const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(3)}%`;
    console.log(
      `  frames never sent ${m.holes} (${pct(m.holes, due)} of ${due} due); ` +
        `received ${m.received} of ${m.sent} sent (${pct(Math.max(0, m.sent - m.received), m.sent)} short, give or take a batch)`,
    );
  }
  const again = await bare();
  report('baseline again', again, base);
  clearInterval(keepAlive);
}

void main();
