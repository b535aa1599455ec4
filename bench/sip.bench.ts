// SIP benchmark, two parts.
// Signalling: sipp's UAC (INVITE, 200, ACK, BYE, 200; no media) against our stack answering with
// UasLeg, next to the same sipp UAC against sipp's own UAS, in the same run. Prints calls per second
// reached with no failed call, and our rate as a ratio of sipp-to-sipp.
// Media: sipp's UAC holds SIP_BENCH_MEDIA_CALLS concurrent G.711 calls to our stack, each answered
// with an RtpSession (one SharedPacer for all, as the node runs them) sending 20 ms PCMU frames and
// decoding what comes in; sipp's -rtp_echo sends every packet back, so each packet crosses the wire
// both ways. Prints packets lost or late (target under 1%), resident memory per concurrent call
// (target under 200 KiB), CPU and event-loop delay while they run.
//   npm run bench:sip   (SIP_BENCH_RATE=1000 calls/s, SIP_BENCH_CALLS=5000; raise the rate to find the
//                        ceiling. SIP_BENCH_MEDIA_CALLS=500, SIP_BENCH_MEDIA_HOLD_S=10,
//                        SIP_BENCH_MEDIA=0 skips the media part)
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { systemClock } from '../src/shared/clock.js';
import { G711Codec } from '../src/telephony/media/codecs/g711.js';
import { RtpPortAllocator } from '../src/telephony/media/port-allocator.js';
import { RtpSession } from '../src/telephony/media/rtp-session.js';
import { SharedPacer } from '../src/telephony/media/shared-pacer.js';
import { answerOffer } from '../src/telephony/sip/sdp/answer.js';
import { SipStack } from '../src/telephony/sip/stack.js';
import { UasLeg } from '../src/telephony/sip/uas-leg.js';

const RATE = Number(process.env.SIP_BENCH_RATE ?? 1000);
const CALLS = Number(process.env.SIP_BENCH_CALLS ?? 5000);
const MEDIA = process.env.SIP_BENCH_MEDIA !== '0';
const MEDIA_CALLS = Number(process.env.SIP_BENCH_MEDIA_CALLS ?? 500);
const MEDIA_HOLD_S = Number(process.env.SIP_BENCH_MEDIA_HOLD_S ?? 10);
/** Calls set up per second while the media calls ramp up. */
const MEDIA_RATE = Number(process.env.SIP_BENCH_MEDIA_RATE ?? 100);
/** sipp processes sharing the media calls, each with its own RTP echo socket. */
const MEDIA_PEERS = Number(process.env.SIP_BENCH_MEDIA_PEERS ?? 4);
const SDP =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';

interface Run {
  readonly ok: number;
  readonly failed: number;
  readonly seconds: number;
  readonly code: number | null;
}

function sipp(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    p.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
}

/** Cumulative column of sipp's final statistics screen. */
function stat(out: string, label: string): number {
  const lines = out.split('\n').filter((l) => l.includes(label));
  const last = lines.at(-1)?.split('|');
  return last ? Number(last[2]?.trim() ?? NaN) : NaN;
}

async function uac(port: number): Promise<Run> {
  const started = performance.now();
  const r = await sipp([
    '-sn',
    'uac',
    `127.0.0.1:${port}`,
    '-i',
    '127.0.0.1',
    '-r',
    String(RATE),
    '-m',
    String(CALLS),
    '-d',
    '0',
    '-nostdin',
    '-timeout',
    '120s',
  ]);
  const seconds = (performance.now() - started) / 1000;
  return { ok: stat(r.out, 'Successful call'), failed: stat(r.out, 'Failed call'), seconds, code: r.code };
}

async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function ours(): Promise<Run & { rssGrowth: number }> {
  let n = 0;
  let port = 0;
  const stack = new SipStack({
    clock: systemClock,
    host: '127.0.0.1',
    port: 0,
    throttle: { ratePerSecond: 1e6, burst: 1e6 },
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock: systemClock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `b${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
        },
        req,
        tx,
        { cancelled: () => undefined, bye: () => undefined, ackTimeout: () => undefined },
      );
      leg.answer(SDP);
      return true;
    },
  });
  port = (await stack.listen()).udp!;
  const rss0 = process.memoryUsage().rss;
  const run = await uac(port);
  const rssGrowth = process.memoryUsage().rss - rss0;
  await stack.close();
  return { ...run, rssGrowth };
}

async function baseline(): Promise<Run> {
  const port = await freePort();
  const server = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(port), '-nostdin'], {
    stdio: 'ignore',
  });
  try {
    return await uac(port);
  } finally {
    server.kill('SIGTERM');
  }
}

function line(name: string, r: Run): string {
  const cps = r.ok / r.seconds;
  return `${name.padEnd(28)} ${String(r.ok).padStart(6)} ok ${String(r.failed).padStart(4)} failed  ${cps.toFixed(0).padStart(5)} calls/s`;
}

/** The scenario sits in test/interop/ with the other sipp scenarios; found from bench/ or dist/bench/. */
function scenario(name: string): string {
  const candidates = [`../test/interop/${name}`, `../../test/interop/${name}`].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`scenario ${name} not found in ${candidates.join(', ')}`);
  return found;
}

interface MediaRun {
  readonly calls: number;
  readonly held: number;
  readonly sent: number;
  readonly received: number;
  readonly late: number;
  readonly skippedFrames: number;
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
async function media(): Promise<MediaRun> {
  const pacer = new SharedPacer(systemClock);
  const ports = new RtpPortAllocator(20000, 20000 + 4 * MEDIA_CALLS + 1000);
  const sessions: RtpSession[] = [];
  const legs: UasLeg[] = [];
  let n = 0;
  let port = 0;
  let setupErrors = 0;
  let frames = 0;
  const answer = async (leg: UasLeg, offer: string): Promise<void> => {
    const session = new RtpSession({
      clock: systemClock,
      ports,
      host: '127.0.0.1',
      codec: new G711Codec('ulaw'),
      pacer,
      onAudio: () => void frames++,
    });
    sessions.push(session);
    const rtpPort = await session.bind();
    const a = answerOffer(
      offer,
      { address: '127.0.0.1', port: rtpPort, codecs: ['PCMU'] },
      { sessionId: String(n), sessionVersion: 1, address: '127.0.0.1' },
    );
    if (!a.ok) throw new Error(a.why);
    session.setRemote({ address: a.audio.remoteAddress, port: a.audio.remotePort });
    leg.answer(a.sdp);
    session.start();
  };
  const stack = new SipStack({
    clock: systemClock,
    host: '127.0.0.1',
    port: 0,
    throttle: { ratePerSecond: 1e6, burst: 1e6 },
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock: systemClock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `m${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
        },
        req,
        tx,
        {
          cancelled: () => undefined,
          bye: () => undefined,
          ackTimeout: () => undefined,
        },
      );
      legs.push(leg);
      answer(leg, new TextDecoder().decode(req.body)).catch(() => {
        setupErrors++;
        leg.reject(500, 'Server Internal Error');
      });
      return true;
    },
  });
  port = (await stack.listen()).udp!;
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  // Several sipp UACs share the calls: one sipp echoes every packet of its calls on one socket in
  // one thread, and that socket's receive buffer, not our side, is what overflows first.
  const peers = Array.from({ length: MEDIA_PEERS }, (_, i) => ({
    calls: Math.floor(MEDIA_CALLS / MEDIA_PEERS) + (i < MEDIA_CALLS % MEDIA_PEERS ? 1 : 0),
    echoPort: 0,
  }));
  for (const peer of peers) peer.echoPort = await freePort();
  const runs = peers.map(async (peer) =>
    sipp([
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
    ]),
  );
  const started = Promise.all(runs);
  // Any sipp ending before its calls are up has given up (a bind failure, a timeout).
  let sippDone = false;
  for (const r of runs) void r.then(() => (sippDone = true));
  // Every call up (its ACK in), or sipp gave up.
  while (legs.filter((l) => l.acked).length + setupErrors < MEDIA_CALLS && !sippDone) await sleep(100);
  const held = legs.filter((l) => l.acked).length;
  await sleep(2000); // settle: jitter buffers filled, timers in step
  const mem = process.memoryUsage();
  const sum = (f: (s: RtpSession) => number) => sessions.reduce((t, s) => t + f(s), 0);
  const sent0 = sum((s) => s.sender.stats.packets);
  const recv0 = sum((s) => s.counters.rtpIn);
  const late0 = sum((s) => s.receiver.jitterBuffer.stats.late);
  const skipped0 = pacer.skipped;
  const ourPorts = new Set(sessions.map((s) => s.localPort));
  const drops = () => {
    const d = udpDrops();
    let ours = 0;
    for (const [p, n] of d) if (ourPorts.has(p)) ours += n;
    const echo = peers.reduce((t, p) => t + (d.get(p.echoPort) ?? 0), 0);
    return { echo, ours };
  };
  const drops0 = drops();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(MEDIA_HOLD_S * 1000);
  // Stop sending, let the last echoes come home, then count.
  for (const s of sessions) s.setDirection('recvonly');
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  delay.disable();
  await sleep(500);
  const sent = sum((s) => s.sender.stats.packets) - sent0;
  const received = sum((s) => s.counters.rtpIn) - recv0;
  const late = sum((s) => s.receiver.jitterBuffer.stats.late) - late0;
  const drops1 = drops();
  for (const leg of legs) leg.bye();
  const outs = (await started).map((r) => r.out);
  await Promise.all(sessions.map((s) => s.close()));
  await stack.close();
  if (frames === 0) throw new Error('no audio frames played out');
  return {
    calls: MEDIA_CALLS,
    held,
    sent,
    received,
    late,
    skippedFrames: pacer.skipped - skipped0,
    rssPerCall: (mem.rss - rss0) / Math.max(1, held),
    heapPerCall: (mem.heapUsed - heap0) / Math.max(1, held),
    cpu: (cpu.user + cpu.system) / 1e6 / seconds,
    delayP99: delay.percentile(99) / 1e6,
    peers: MEDIA_PEERS,
    sippOk: outs.reduce((t, o) => t + stat(o, 'Successful call'), 0),
    sippFailed: outs.reduce((t, o) => t + stat(o, 'Failed call'), 0),
    droppedAtEcho: drops1.echo - drops0.echo,
    droppedAtUs: drops1.ours - drops0.ours,
  };
}

async function main(): Promise<void> {
  console.log(`sipp UAC at ${RATE} calls/s, ${CALLS} calls, no media`);
  const base = await baseline();
  console.log(line('sipp UAC -> sipp UAS', base));
  const us = await ours();
  console.log(line('sipp UAC -> Switchboard', us));
  const ratio = us.ok / us.seconds / (base.ok / base.seconds);
  // Calls here last a few ms, so memory per concurrent call is the media part's figure, not this one.
  console.log(
    `ratio to sipp-to-sipp: ${(ratio * 100).toFixed(0)}%   RSS growth over the run: ${(us.rssGrowth / 1048576).toFixed(1)} MiB`,
  );
  let failed = us.failed > 0 || !(us.ok > 0);
  const cps = us.ok / us.seconds;
  const targets = [
    `signalling >= 300 calls/s: ${cps >= 300 ? 'met' : 'NOT met'} (${cps.toFixed(0)}, at ${RATE} offered)`,
    `>= 50% of sipp-to-sipp: ${ratio >= 0.5 ? 'met' : 'NOT met'} (${(ratio * 100).toFixed(0)}%)`,
  ];
  if (MEDIA) {
    console.log(
      `\nsipp UAC -> Switchboard, ${MEDIA_CALLS} concurrent G.711 calls (set up at ${MEDIA_RATE}/s), ` +
        `media both ways through the -rtp_echo of ${MEDIA_PEERS} sipp processes, measured over ${MEDIA_HOLD_S} s`,
    );
    const m = await media();
    const lost = Math.max(0, m.sent - m.received);
    const pct = (x: number) => `${((x / Math.max(1, m.sent)) * 100).toFixed(3)}%`;
    console.log(
      `calls held                   ${m.held} of ${m.calls} (sipp: ${m.sippOk} ok, ${m.sippFailed} failed)`,
    );
    console.log(
      `RTP packets                  ${m.sent} sent, ${m.received} back: lost ${lost} (${pct(lost)}), ` +
        `late ${m.late} (${pct(m.late)}); lost + late ${pct(lost + m.late)} (target < 1%)`,
    );
    console.log(
      `  of which the kernel dropped ${m.droppedAtEcho} at sipp's echo sockets (full receive buffers) ` +
        `and ${m.droppedAtUs} at our RTP sockets`,
    );
    console.log(
      `memory per concurrent call   ${(m.rssPerCall / 1024).toFixed(1)} KiB RSS (target < 200 KiB), ` +
        `${(m.heapPerCall / 1024).toFixed(1)} KiB JS heap`,
    );
    // A stalled event loop makes the shared pacer skip ticks (timestamps stay true, the frames are
    // never sent): for every call at once, so they count against the send side.
    const unsent = m.skippedFrames * m.held;
    console.log(
      `while held                   ${(m.cpu * 100).toFixed(0)}% of a core, event-loop delay p99 ` +
        `${m.delayP99.toFixed(1)} ms; ${m.skippedFrames} pacer ticks skipped after stalls = ${unsent} frames ` +
        `never sent (${((unsent / Math.max(1, m.sent + unsent)) * 100).toFixed(3)}% of those due)`,
    );
    failed ||= m.held < m.calls || m.sippFailed > 0;
    const bad = (lost + m.late) / Math.max(1, m.sent);
    targets.push(
      `>= 500 concurrent G.711 calls with media: ${m.held >= 500 ? 'met' : 'NOT met'} (${m.held})`,
      `lost or late < 1%: ${bad < 0.01 ? 'met' : 'NOT met'} (${(bad * 100).toFixed(3)}%; frames never sent apart)`,
      `< 200 KiB per call: ${m.rssPerCall < 200 * 1024 ? 'met' : 'NOT met'} (${(m.rssPerCall / 1024).toFixed(1)} KiB)`,
    );
  }
  console.log(`\ntargets (issue 5; figures from a shared 2-core machine):\n  ${targets.join('\n  ')}`);
  process.exitCode = failed ? 1 : 0;
}

void main();
