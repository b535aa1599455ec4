// Media workers: a session whose sockets, pacing and encoding run on a worker thread keeps every
// frame in order and on its timestamp grid while the main thread is blocked (the same blockage
// punches holes in an in-process session's stream, the control), and SRTP both ways, digits, a
// recording's tap of what was sent, the queue figure and RTCP still work through it. A worker
// that dies ends its own sessions, not the process.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../shared/clock.js';
import { G711Codec } from '../../../audio/codecs/g711.js';
import { loadConfig } from '../../../config/config.js';
import { RtpPortAllocator } from '../port-allocator.js';
import { decodeRtp, RtpPacket, RtpStatus } from '../rtp-packet.js';
import { MediaBridge, MediaTap, rtpBridgeEnd } from '../bridge.js';
import { RtpSession, type RtpSessionOptions } from '../rtp-session.js';
import { MediaWorkerPool, type WorkerSessionEvents } from './media-worker-pool.js';
import type { OpenSession } from './protocol.js';

const HOST = '127.0.0.1';
const base = 44000 + (process.pid % 50) * 40;
const ports = new RtpPortAllocator(base, base + 39);
let pool: MediaWorkerPool;
const open: RtpSession[] = [];

beforeAll(async () => {
  pool = await MediaWorkerPool.start(2);
});
afterAll(async () => {
  await pool.close();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Waits (on the event loop, never asserting on time) until `done`. */
async function until(done: () => boolean, what: string, limit = 500): Promise<void> {
  for (let i = 0; i < limit && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error(`gave up waiting for ${what}`);
}

function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* the main thread is stuck: an API burst, a slow synchronous query */
  }
}

const tone = (n: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)));

function session(extra: Partial<RtpSessionOptions> = {}): RtpSession {
  const s = new RtpSession({ clock: systemClock, ports, host: HOST, codec: new G711Codec('ulaw'), ...extra });
  open.push(s);
  return s;
}

/** A raw UDP peer that keeps every RTP packet's sequence number and timestamp. */
async function receiver(): Promise<{ port: number; got: { seq: number; ts: number }[]; close: () => void }> {
  const socket = dgram.createSocket('udp4');
  const got: { seq: number; ts: number }[] = [];
  const p = new RtpPacket();
  socket.on('message', (msg) => {
    if (msg.length >= 12 && (msg[1]! & 0x7f) < 72 && decodeRtp(msg, p) === RtpStatus.Ok) {
      got.push({ seq: p.sequenceNumber, ts: p.timestamp });
    }
  });
  await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
  return { port: socket.address().port, got, close: () => socket.close() };
}

/** Frames missing from the stream: timestamp steps of more than one frame between neighbours. */
function holes(got: { seq: number; ts: number }[]): { seqGaps: number; tsHoles: number } {
  let seqGaps = 0;
  let tsHoles = 0;
  for (let i = 1; i < got.length; i++) {
    if (((got[i]!.seq - got[i - 1]!.seq) & 0xffff) !== 1) seqGaps++;
    const step = (got[i]!.ts - got[i - 1]!.ts) >>> 0;
    if (step !== 160) tsHoles += Math.max(1, Math.round(step / 160) - 1);
  }
  return { seqGaps, tsHoles };
}

/** Plays 1.2 s of tone, blocks the main thread for 200 ms in the middle, and waits for the end. */
async function playThroughABlock(s: RtpSession, peer: { got: unknown[] }): Promise<void> {
  await s.bind();
  s.start();
  s.enqueue(tone(16000 * 1.2));
  await until(() => peer.got.length >= 20, 'the first frames');
  busyWait(200);
  await until(() => s.sender.queuedMs === 0 && peer.got.length >= 60, 'the tone to finish');
}

describe('media workers', () => {
  it('sends every frame on its grid while the main thread is blocked for 200 ms', async () => {
    const peer = await receiver();
    const s = session({ workers: pool, remote: { address: HOST, port: peer.port }, idle: 'pause' });
    await playThroughABlock(s, peer);
    await s.close();
    peer.close();
    expect(peer.got.length).toBe(60);
    expect(holes(peer.got)).toEqual({ seqGaps: 0, tsHoles: 0 });
    expect(s.sender.stats.holeFrames).toBe(0);
  });

  it('control: the same block punches holes in an in-process session', async () => {
    const peer = await receiver();
    const s = session({ remote: { address: HOST, port: peer.port }, idle: 'pause' });
    await s.bind();
    s.start();
    s.enqueue(tone(16000 * 1.2));
    await until(() => peer.got.length >= 20, 'the first frames');
    busyWait(200);
    await until(() => s.sender.queuedMs === 0, 'the tone to finish');
    await s.close();
    peer.close();
    expect(holes(peer.got).tsHoles).toBeGreaterThan(0);
    expect(s.sender.stats.holeFrames).toBeGreaterThan(0);
  });

  it('carries SRTP both ways, digits, the sent-frame tap, the queue figure and RTCP', async () => {
    const suite = 'AES_CM_128_HMAC_SHA1_80' as const;
    const keyA = randomBytes(30);
    const keyB = randomBytes(30);
    const heardByPeer: Int16Array[] = [];
    const heardByWorker: Int16Array[] = [];
    const digits: string[] = [];
    const onWorker = session({
      workers: pool,
      rtcpIntervalMs: 200,
      srtp: { suite, localKey: keyA, remoteKey: keyB },
      onAudio: (pcm, info) => void (info.concealed || heardByWorker.push(pcm)),
    });
    const peer = session({
      srtp: { suite, localKey: keyB, remoteKey: keyA },
      onAudio: (pcm, info) => void (info.concealed || heardByPeer.push(pcm)),
      onDigit: (d) => digits.push(d.digit),
    });
    const [a, b] = [await onWorker.bind(), await peer.bind()];
    onWorker.setRemote({ address: HOST, port: b });
    peer.setRemote({ address: HOST, port: a });
    const sent: Int16Array[] = [];
    onWorker.sender.onSent = (pcm) => sent.push(pcm);
    onWorker.start();
    peer.start();
    onWorker.enqueue(tone(16000));
    expect(onWorker.sender.queuedMs).toBeGreaterThan(900);
    await until(() => heardByPeer.length >= 10 && heardByWorker.length >= 10, 'audio both ways');
    await onWorker.sendDigits('5');
    await until(() => digits.length === 1, 'the digit');
    expect(digits).toEqual(['5']);
    await until(() => sent.length >= 10, 'the tap');
    await until(() => peer.counters.rtcpIn > 0, 'RTCP from the worker', 1500);
    await until(() => onWorker.counters.rtcpIn > 0, 'RTCP to the worker', 1500);
    onWorker.sender.clear();
    expect(onWorker.sender.queuedMs).toBe(0);
    expect(peer.counters.srtpDropped + onWorker.counters.srtpDropped).toBe(0);
    expect(onWorker.isLatched).toBe(true);
    // The tone went out as it was given (the tap sees pipeline-rate frames before encoding).
    expect(sent.some((f) => f.some((v) => v !== 0))).toBe(true);
    await until(() => onWorker.counters.rtpOut > 0, 'the worker figures');
  });

  it('receives, unprotects, buffers and decodes on the worker: a 200 ms block of the main thread conceals no frame', async () => {
    const suite = 'AES_CM_128_HMAC_SHA1_80' as const;
    const keyA = randomBytes(30);
    const keyB = randomBytes(30);
    const heard: { concealed: boolean; loud: boolean }[] = [];
    // Both ends on workers: the sender must not stall with the main thread either.
    const listener = session({
      workers: pool,
      srtp: { suite, localKey: keyA, remoteKey: keyB },
      idle: 'pause',
      onAudio: (pcm, info) =>
        void heard.push({ concealed: info.concealed, loud: pcm.some((v) => Math.abs(v) > 1000) }),
    });
    const talker = session({
      workers: pool,
      srtp: { suite, localKey: keyB, remoteKey: keyA },
      idle: 'pause',
    });
    const [a, b] = [await listener.bind(), await talker.bind()];
    listener.setRemote({ address: HOST, port: b });
    talker.setRemote({ address: HOST, port: a });
    listener.start();
    talker.start();
    talker.enqueue(tone(16000 * 1.2));
    await until(() => heard.filter((f) => f.loud).length >= 15, 'the first frames');
    busyWait(200);
    // 60 frames of tone: the first packet is held back by RFC 3550's probation, and the buffer may
    // drop one to give latency back once it has measured the jitter.
    await until(
      () => talker.sender.queuedMs === 0 && heard.filter((f) => f.loud).length >= 55,
      'the whole tone',
    );
    const first = heard.findIndex((f) => f.loud);
    const tone55 = heard.slice(first, first + 55);
    // Every frame of the tone was played out on time by the worker's jitter buffer: none missing.
    expect(tone55.filter((f) => f.concealed)).toHaveLength(0);
    expect(tone55.every((f) => f.loud)).toBe(true);
    await until(() => listener.receiver.jitterBuffer.stats.played >= 55, 'the worker figures');
    expect(listener.receiver.jitterBuffer.stats.late).toBe(0);
    expect(listener.counters.srtpDropped).toBe(0);
    expect(listener.counters.rtpIn).toBeGreaterThanOrEqual(55);
    expect(listener.srtpContexts?.inbound.counters.unprotected).toBeGreaterThanOrEqual(55);
    expect(listener.isLatched).toBe(true);
    expect(listener.receiver.reception?.valid).toBe(true);
  });

  it('refuses a MEDIA_WORKERS that is not a whole number in range, and takes 0', () => {
    expect(() => loadConfig({ MEDIA_WORKERS: 'many' })).toThrow(/MEDIA_WORKERS/);
    expect(() => loadConfig({ MEDIA_WORKERS: '65' })).toThrow(/MEDIA_WORKERS/);
    expect(loadConfig({ MEDIA_WORKERS: '0' }).sip.mediaWorkers).toBe(0);
    expect(loadConfig({ MEDIA_WORKERS: '3' }).sip.mediaWorkers).toBe(3);
  });

  it('reads MEDIA_WORKER_NICE: -10 unless set, a signed whole number from -20 to 19', () => {
    expect(loadConfig({}).sip.mediaWorkerNice).toBe(-10);
    expect(loadConfig({ MEDIA_WORKER_NICE: '0' }).sip.mediaWorkerNice).toBe(0);
    expect(loadConfig({ MEDIA_WORKER_NICE: '-20' }).sip.mediaWorkerNice).toBe(-20);
    expect(() => loadConfig({ MEDIA_WORKER_NICE: '-21' })).toThrow(/MEDIA_WORKER_NICE/);
    expect(() => loadConfig({ MEDIA_WORKER_NICE: 'high' })).toThrow(/MEDIA_WORKER_NICE/);
  });
});

/** The nice value of each thread of this process (Linux /proc: field 19 of a task's stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count from its closing parenthesis.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe.runIf(process.platform === 'linux')('media workers\u2019 scheduling priority', () => {
  it('raises the worker threads only, or says why it could not', async () => {
    const before = threadNices().filter((n) => n === -3).length;
    const raised = await MediaWorkerPool.start(2, { nice: -3 });
    try {
      if (process.getuid?.() === 0) {
        expect(raised.priority).toEqual({ nice: -3, niceError: null });
        // Exactly the two new threads: the test's own thread and the rest keep theirs.
        expect(threadNices().filter((n) => n === -3).length).toBe(before + 2);
        expect(getPriority(0)).toBe(0);
      } else {
        expect(raised.priority.niceError).toMatch(/^E(ACCES|PERM)$/);
        expect(raised.priority.nice).toBe(0);
      }
    } finally {
      await raised.close();
    }
  });

  it('asks for nothing at 0', async () => {
    const plain = await MediaWorkerPool.start(1, { nice: 0 });
    try {
      expect(plain.priority).toEqual({ nice: 0, niceError: null });
    } finally {
      await plain.close();
    }
  });
});

describe('a bridge on the media workers', () => {
  let two: MediaWorkerPool;
  beforeAll(async () => {
    two = await MediaWorkerPool.start(2);
  });
  afterAll(async () => {
    await two.close();
  });

  /**
   * caller ⇄ legA ═ bridge ═ legB ⇄ human, every session on `two` (opened in this order, round
   * robin over its two workers; `pad` puts legA and legB on one worker). The caller talks, the
   * main thread is blocked 200 ms meanwhile, and the human must hear all of it.
   */
  async function bridged(sameWorker: boolean): Promise<void> {
    const on = (extra: Partial<RtpSessionOptions> = {}) => session({ workers: two, idle: 'pause', ...extra });
    const heard: { concealed: boolean; loud: boolean }[] = [];
    const caller = on();
    const tapA = new MediaTap();
    // legA's frames go both to the bridge and to this thread's listener.
    const loudOnA: boolean[] = [];
    tapA.onAudio((pcm) => void loudOnA.push(pcm.some((v) => Math.abs(v) > 1000)));
    const legA = on(tapA.sessionOptions);
    if (sameWorker) await on().bind(); // pad
    const tapB = new MediaTap();
    const legB = on(tapB.sessionOptions);
    const human = on({
      onAudio: (pcm, info) =>
        void heard.push({ concealed: info.concealed, loud: pcm.some((v) => Math.abs(v) > 1000) }),
    });
    const [c, a, b, h] = [await caller.bind(), await legA.bind(), await legB.bind(), await human.bind()];
    caller.setRemote({ address: HOST, port: a });
    legA.setRemote({ address: HOST, port: c });
    legB.setRemote({ address: HOST, port: h });
    human.setRemote({ address: HOST, port: b });
    for (const s of [caller, legA, legB, human]) s.start();
    const bridge = new MediaBridge(rtpBridgeEnd(legA, tapA), rtpBridgeEnd(legB, tapB));
    bridge.start();
    expect(bridge.onWorkers).toBe(true);
    // The human sends too, so legB's peer is latched (and its socket connected) both ways.
    human.enqueue(new Int16Array(16000 * 0.4));
    caller.enqueue(tone(16000 * 1.2));
    await until(() => heard.filter((f) => f.loud).length >= 15, 'the caller through the bridge');
    busyWait(200);
    await until(
      () => caller.sender.queuedMs === 0 && heard.filter((f) => f.loud).length >= 55,
      'the whole tone',
    );
    const first = heard.findIndex((f) => f.loud);
    const through = heard.slice(first, first + 55);
    expect(through.filter((f) => f.concealed)).toHaveLength(0);
    await until(() => bridge.counters.aToB >= 55, 'the bridge figures');
    expect(bridge.counters.droppedAToB).toBe(0);
    await until(() => loudOnA.filter((l) => l).length >= 55, "the tone on legA's listener too");
    // legA's frames went to legB's sender on the workers, not through a listener here.
    bridge.stop();
    const after = legB.sender.stats.packets;
    await until(() => legB.sender.stats.packets >= after, 'figures after the stop');
  }

  it('passes one side to the other worker to worker (two workers, a MessageChannel)', async () => {
    await bridged(false);
  });

  it('passes one side to the other within one worker', async () => {
    await bridged(true);
  });
});

describe('a media worker that dies', () => {
  const events = (errors: string[]): WorkerSessionEvents => ({
    onRtcp: () => undefined,
    onFrame: () => undefined,
    onDigit: () => undefined,
    onDigitEnd: () => undefined,
    onLatched: () => undefined,
    onStats: () => undefined,
    onSent: () => undefined,
    onError: (err) => errors.push(err.message),
  });
  const spec = (): Omit<OpenSession, 't' | 'id'> => ({
    host: HOST,
    port: ports.allocate()!,
    rtcpMux: true,
    codec: 'PCMU',
    payloadType: 0,
    ssrc: 1,
    sequence: 1,
    timestamp: 1,
    srtp: null,
    receive: { remote: null, audio: false },
  });

  it('fails its own sessions, not the process, and the pool opens new ones on the workers left', async () => {
    const own = await MediaWorkerPool.start(2);
    const used: number[] = [];
    const opened = async (errors: string[]) => {
      const s = spec();
      used.push(s.port);
      return own.open(s, events(errors));
    };
    try {
      const [onA, onB]: [string[], string[]] = [[], []];
      const a = await opened(onA);
      const b = await opened(onB);
      expect(a.worker).not.toBe(b.worker);
      // An exception nothing caught in a's thread: Node emits it on the Worker, then the thread
      // exits. Unheard, that 'error' would be thrown on this thread and end the process.
      a.worker.thread.emit('error', new Error('uncaught in the worker'));
      await a.worker.thread.terminate();
      expect(onA).toEqual(['uncaught in the worker']);
      expect(onB).toEqual([]);
      // What waits on the dead thread's answer is let go.
      await a.close();
      await a.sendDigits('1', {});
      // New sessions go to the worker left, which answers (its closed messages).
      const c = await opened(onB);
      expect(c.worker).toBe(b.worker);
      await Promise.all([b.close(), c.close()]);
      expect(onB).toEqual([]);
    } finally {
      await own.close();
      for (const p of used) ports.release(p);
    }
  });
});
