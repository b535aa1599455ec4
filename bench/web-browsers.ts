// The browsers of `npm run bench:web`, in a process of their own (so their CPU is not the
// service's): N node-datachannel peers that offer Opus, connect, and then take turns with the
// service — speak a second of tone, fall silent, time the first packet of the answer. Driven by
// the parent over IPC; reports connect times, answer latencies and late packets when told to stop.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ClientPeer } from '../src/webrtc/client-peer.js';
import { SharedPacer } from '../src/telephony/media/shared-pacer.js';
import { systemClock } from '../src/shared/clock.js';

type FromParent =
  | { type: 'start'; n: number; speakMs: number }
  | { type: 'answer'; id: number; sdp: string }
  | { type: 'stop' };

const pacer = new SharedPacer(systemClock);
// This process's own event-loop delay: the baseline of what the machine does to a frame clock.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const peers = new Map<number, ClientPeer>();
const connectMs: number[] = [];
const answerMs: number[] = [];
let packets = 0;
let latePackets = 0;
let stopping = false;
const pendingAnswers = new Map<number, (sdp: string) => void>();

function send(m: object): void {
  process.send!(m);
}

function tone(ms: number): Int16Array {
  const n = (16000 * ms) / 1000;
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runPeer(id: number, speakMs: number): Promise<void> {
  let lastPacketAt = 0;
  let waitingSince = 0;
  let onFirst: (() => void) | null = null;
  const peer = new ClientPeer({
    pacer,
    onPacket: (at) => {
      packets++;
      // Within a talk spurt packets come every 20 ms; one more than 60 ms after the last is late.
      if (lastPacketAt && at - lastPacketAt > 60 && at - lastPacketAt < 300) latePackets++;
      lastPacketAt = at;
      if (onFirst && at > waitingSince) {
        const f = onFirst;
        onFirst = null;
        answerMs.push(at - waitingSince);
        f();
      }
    },
  });
  peers.set(id, peer);
  const started = performance.now();
  const offer = await peer.offer();
  const answered = new Promise<string>((resolve) => pendingAnswers.set(id, resolve));
  send({ type: 'offer', id, sdp: offer });
  peer.accept(await answered);
  send({ type: 'candidates', id, candidates: peer.candidates() });
  await peer.connected();
  connectMs.push(performance.now() - started);
  const quiet = async () => {
    // The service's speech is over once nothing came for 300 ms.
    while (!stopping && performance.now() - lastPacketAt < 300) await sleep(50);
  };
  // The greeting: wait for it to start, then to end.
  while (!stopping && lastPacketAt === 0) await sleep(20);
  await quiet();
  while (!stopping) {
    peer.speak(tone(speakMs));
    while (!stopping && peer.queuedMs > 0) await sleep(2);
    if (stopping) break;
    waitingSince = performance.now();
    await new Promise<void>((resolve) => {
      onFirst = resolve;
      const check = setInterval(() => {
        if (stopping) {
          clearInterval(check);
          resolve();
        }
      }, 100);
      const done = onFirst;
      onFirst = () => {
        clearInterval(check);
        done();
      };
    });
    await quiet();
  }
}

process.on('message', (m: FromParent) => {
  if (m.type === 'start') {
    for (let i = 0; i < m.n; i++) {
      void runPeer(i, m.speakMs).catch((err: unknown) =>
        send({ type: 'failed', id: i, message: String(err) }),
      );
    }
  } else if (m.type === 'answer') {
    pendingAnswers.get(m.id)?.(m.sdp);
  } else if (m.type === 'stop') {
    stopping = true;
    let holes = 0;
    let sent = 0;
    for (const p of peers.values()) {
      holes += p.holeFrames;
      sent += p.framesSent;
    }
    send({
      type: 'report',
      connectMs,
      answerMs,
      packets,
      latePackets,
      browserHoles: holes,
      browserSent: sent,
      browserLoopP99: loopDelay.percentile(99) / 1e6,
    });
    setTimeout(() => {
      for (const p of peers.values()) p.close();
      process.exit(0);
    }, 200);
  }
});
