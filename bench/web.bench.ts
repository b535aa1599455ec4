// npm run bench:web — browser voice under load. This process is the service's side: for each web
// session a WebRtcPeer (node-datachannel) under a WebChannel, the same voice pipeline a call runs
// (TTS playback, VAD turn taking, the shared 20 ms frame clock). A second process
// (web-browsers.ts) plays the browsers: N node-datachannel peers that connect, hear a greeting,
// then take turns (a second of tone, silence, the service's answer). Providers are fakes with
// fixed delays, so what is left of the answer time is the platform's own.
//
// It ramps the sessions (WEB_BENCH_STEPS) and stops at the first step past the target (a failed
// connect, or ≥ 1% of frames lost or late), so the last line shows what happens past the limit.
// Per step: sessions connected / failed, connect time (offer → connected, measured by the
// browser) p50/p95; loss: frames the service owed whose time passed unsent (its frame clock
// stalled with audio queued; idle ticks owe nothing), plus for each failed connect as many frames
// as a connected session sent; late: packets the browsers got > 60 ms after the previous one
// inside a talk spurt; the answer time (end of the browser's speech → first packet of the answer)
// p50/p99 and its platform-added part (minus endpointing and the fake STT and TTS delays);
// event-loop delay p99 of both processes; the service process's CPU.
// Baselines in the same run: the browsers' own frame clock (the same RtpSender on the same
// machine with no service around it: what the machine alone does to a 20 ms clock), a lone peer
// pair's connect time in one process, and the step with one session.
//   WEB_BENCH_STEPS=1,25,50,75,100,125,150,200  WEB_BENCH_SECONDS=12  WEB_BENCH_DEBUG=1 (raw counts)
import { fork, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnergyVad } from '../src/audio/vad.js';
import { WebChannel, type WebChannelOptions } from '../src/channels/web-channel.js';
import type { WebPeerFactory } from '../src/channels/web-media.js';
import { AsyncQueue } from '../src/providers/shared/async-queue.js';
import type { SttEvent, SttProvider, SttSession } from '../src/providers/stt/stt.types.js';
import type { TtsProvider, TtsRequest } from '../src/providers/tts/tts.types.js';
import { systemClock } from '../src/shared/clock.js';
import { ClientPeer } from '../src/webrtc/client-peer.js';
import { WebRtcPeer } from '../src/webrtc/peer.js';
import { SharedPacer } from '../src/telephony/media/shared-pacer.js';

const STEPS = (process.env.WEB_BENCH_STEPS ?? '1,25,50,75,100,125,150,200').split(',').map(Number);
const SECONDS = Number(process.env.WEB_BENCH_SECONDS ?? 12);
const ENDPOINT_MS = 300;
const STT_DELAY_MS = 40;
const TTS_DELAY_MS = 40;
const here = path.dirname(fileURLToPath(import.meta.url));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TTS that waits TTS_DELAY_MS, then speaks a 440 Hz tone, 40 ms per character. */
class ToneTts implements TtsProvider {
  readonly id = 'bench_tts';
  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    await sleep(TTS_DELAY_MS);
    const total = request.text.length * 40 * 16;
    for (let i = 0; i < total; i += 1600) {
      yield Int16Array.from({ length: Math.min(1600, total - i) }, (_, k) =>
        Math.round(6000 * Math.sin((2 * Math.PI * 440 * (i + k)) / 16000)),
      );
    }
  }
}

/** An STT whose turns end on the energy VAD's end of speech, STT_DELAY_MS later. */
class VadStt implements SttProvider {
  readonly id = 'bench_stt';
  async start(): Promise<SttSession> {
    const events = new AsyncQueue<SttEvent>();
    const vad = new EnergyVad({ sampleRate: 16000, hangoverMs: ENDPOINT_MS });
    let audioMs = 0;
    let startMs = 0;
    return {
      events,
      get audioMs() {
        return audioMs;
      },
      sendAudio(pcm: Int16Array) {
        audioMs += pcm.length / 16;
        for (const e of vad.push(pcm)) {
          if (e.type === 'speech_start') {
            startMs = e.atMs;
            events.push({ type: 'speech_started', atMs: e.atMs });
          } else {
            const durationMs = e.atMs - startMs;
            setTimeout(() => {
              events.push({
                type: 'transcript',
                text: 'hello there',
                isFinal: true,
                speechFinal: true,
                confidence: 0.9,
                startMs,
                durationMs,
              });
            }, STT_DELAY_MS);
          }
        }
      },
      finalize() {},
      async close() {
        events.end();
      },
    };
  }
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');

/** The library alone: a ClientPeer and a WebRtcPeer connecting in one process, ten times. */
async function baselineConnect(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const browser = new ClientPeer();
    const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1' });
    const t0 = performance.now();
    const answer = await server.answer(await browser.offer());
    browser.accept(answer);
    for (const c of browser.candidates()) server.addRemoteCandidate(c, '0');
    await browser.connected();
    times.push(performance.now() - t0);
    browser.close();
    server.close();
  }
  return pct(times, 50);
}

interface Report {
  connectMs: number[];
  answerMs: number[];
  packets: number;
  latePackets: number;
  browserHoles: number;
  browserSent: number;
  browserLoopP99: number;
}

interface StepResult {
  n: number;
  failedConnects: number;
  lossPct: number;
  latePct: number;
}

const TARGET_LOSS_PCT = 1;

/**
 * Answers the browsers' offers as they come (a web channel each, which then converses), passes on
 * their candidates and notes failures; resolves with the browsers' report at the end of the step.
 */
function answerBrowsers(
  child: ChildProcess,
  parts: Pick<WebChannelOptions, 'peers' | 'tts' | 'stt'>,
  channels: Map<number, WebChannel>,
  stop: AbortSignal,
  failures: string[],
): Promise<Report> {
  return new Promise<Report>((resolve) => {
    child.on('message', (m: { type: string; id: number; sdp: string; candidates: string[] } & Report) => {
      if (m.type === 'offer') {
        const channel = new WebChannel({ clock: systemClock, ...parts, voice: 'en' });
        channels.set(m.id, channel);
        channel.acceptOffer(m.sdp).then(
          (sdp) => {
            child.send({ type: 'answer', id: m.id, sdp });
            void converse(channel, stop).catch(() => undefined);
          },
          (err: unknown) => failures.push(String(err)),
        );
      } else if (m.type === 'candidates') {
        for (const c of m.candidates) channels.get(m.id)?.addIceCandidate(c, '0');
      } else if (m.type === 'failed') {
        failures.push(String((m as unknown as { message: string }).message));
      } else if (m.type === 'report') {
        resolve(m);
      }
    });
  });
}

async function step(n: number): Promise<StepResult> {
  const made: WebRtcPeer[] = [];
  // The one frame clock of this node's sessions, as createWebPeerFactory makes it, kept in hand
  // so its own stalls can be read beside the per-session figures.
  const pacer = new SharedPacer(systemClock);
  const peers: WebPeerFactory = () => {
    const p = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1', pacer });
    made.push(p);
    return p;
  };
  const tts = new ToneTts();
  const stt = new VadStt();
  const channels = new Map<number, WebChannel>();
  const stop = new AbortController();
  // Every session's say and listen wait on this one signal.
  setMaxListeners(0, stop.signal);
  const failures: string[] = [];
  const child: ChildProcess = fork(path.join(here, 'web-browsers.js'), { stdio: 'inherit' });
  const report = answerBrowsers(child, { peers, tts, stt }, channels, stop.signal, failures);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  child.send({ type: 'start', n, speakMs: 1000 });
  await sleep(SECONDS * 1000);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  loopDelay.disable();
  child.send({ type: 'stop' });
  const r = await report;
  stop.abort();
  let sent = 0;
  let holes = 0;
  let idleSkips = 0;
  for (const p of made) {
    sent += p.stats.packetsOut;
    // Frames the track dropped before it opened were never sent either.
    holes += p.stats.holeFrames + p.stats.notOpenDrops;
    idleSkips += p.stats.skippedFrames - p.stats.holeFrames;
  }
  for (const c of channels.values()) await c.close();
  const connected = r.connectMs.length;
  const failedConnects = n - connected;
  // A session that never connected lost everything it would have sent: as many frames as the
  // average connected session sent and lost in the same step.
  const perSession = connected ? (sent + holes) / connected : 0;
  const owed = sent + holes + failedConnects * perSession;
  const lossPct = owed ? (100 * (holes + failedConnects * perSession)) / owed : failedConnects ? 100 : 0;
  const latePct = r.packets ? (100 * r.latePackets) / r.packets : 0;
  const baseHoles =
    r.browserSent + r.browserHoles ? (100 * r.browserHoles) / (r.browserSent + r.browserHoles) : NaN;
  const platform = r.answerMs.map((ms) => ms - ENDPOINT_MS - STT_DELAY_MS - TTS_DELAY_MS);
  console.log(
    [
      String(n).padStart(8),
      `${connected}/${failedConnects}`.padStart(11),
      `${f(pct(r.connectMs, 50))}/${f(pct(r.connectMs, 95))}`.padStart(13),
      `${lossPct.toFixed(2)}%`.padStart(7),
      `${latePct.toFixed(2)}%`.padStart(7),
      `${baseHoles.toFixed(2)}%`.padStart(9),
      `${f(pct(r.answerMs, 50))}/${f(pct(r.answerMs, 99))}`.padStart(12),
      `${f(pct(platform, 50))}/${f(pct(platform, 99))}`.padStart(14),
      String(r.answerMs.length).padStart(6),
      `${f(loopDelay.percentile(99) / 1e6)}/${f(r.browserLoopP99)}`.padStart(10),
      `${((100 * (cpu.user + cpu.system)) / 1000 / wall).toFixed(0)}%`.padStart(5),
    ].join(' '),
  );
  if (process.env.WEB_BENCH_DEBUG) {
    console.log(
      `         frames sent ${sent}, holes ${holes}, idle ticks skipped ${idleSkips} (not counted), shared clock skipped ${pacer.skipped}, browsers sent ${r.browserSent} holes ${r.browserHoles}`,
    );
  }
  if (failures.length) console.log(`         ${failures.length} failures, first: ${failures[0]}`);
  return { n, failedConnects, lossPct, latePct };
}

/** The service's side of one session: a greeting, then an answer to every turn. */
async function converse(channel: WebChannel, signal: AbortSignal): Promise<void> {
  await channel.say('Welcome to the benchmark, please speak after the tone.', { bargeIn: false, signal });
  while (!signal.aborted) {
    const turn = await channel.listen({ signal, timeoutMs: 30_000 });
    if (turn) await channel.say('Thank you, go on.', { bargeIn: false, signal });
  }
}

console.log(
  `browser voice: ramp ${STEPS.join(', ')} sessions (stops at the first step past the target), ${SECONDS} s each; endpointing ${ENDPOINT_MS} ms, fake STT ${STT_DELAY_MS} ms, fake TTS ${TTS_DELAY_MS} ms`,
);
console.log(`baseline: a lone peer pair in one process connects in ${f(await baselineConnect())} ms (p50)\n`);
console.log(
  ' sessions  ok/failed  connect p50/95   loss    late  baseline  answer p50/99  platform p50/99  turns  loop p99    CPU',
);
const results: StepResult[] = [];
for (const n of STEPS) {
  const r = await step(n);
  results.push(r);
  if (r.failedConnects > 0 || r.lossPct >= TARGET_LOSS_PCT || r.latePct >= TARGET_LOSS_PCT) break;
}
const within = results.filter(
  (r) => r.failedConnects === 0 && r.lossPct < TARGET_LOSS_PCT && r.latePct < TARGET_LOSS_PCT,
);
const past = results.find((r) => !within.includes(r));
console.log(
  `\nlimit: ${within.length ? within[within.length - 1]!.n : 0} sessions within ${TARGET_LOSS_PCT}% loss and late` +
    (past
      ? `; at ${past.n}: ${past.failedConnects} failed connects, ${past.lossPct.toFixed(2)}% lost, ${past.latePct.toFixed(2)}% late`
      : '; the ramp ended before a step missed the target'),
);
console.log(
  '\nloss: frames the service had to send whose time passed unsent (its frame clock stalled), plus, for each',
);
console.log(
  'failed connect, as many frames as a connected session sent; late: packets the browsers got > 60 ms after',
);
console.log(
  "the previous one of a talk spurt; baseline: the browsers' own frame clock's holes in the same run (same",
);
console.log(
  'sender, same machine, no service around it); loop p99: event-loop delay of the service / the browsers (ms);',
);
console.log('platform: answer time minus endpointing and the fake delays.');
console.log('Figures from a shared, loaded 2-core machine are provisional.');
process.exit(0);
