// The main thread's side of the media workers: N worker threads (MEDIA_WORKERS, default one per
// core), each owning the sockets and both halves of the media of the sessions given to it (round
// robin). A session talks to its worker through a WorkerSession: small messages out, one batch per
// frame back (decoded audio in one transferred buffer, key presses, latch changes, RTCP datagrams,
// figures, a recording's sent frames). `bridge` joins two sessions' audio worker to worker.
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type Transferable } from 'node:worker_threads';
import type { DigitEnd, DigitEvent } from '../dtmf.js';
import type { AudioFrameInfo } from '../rtp-receiver.js';
import type { DigitOptions } from '../rtp-sender.js';
import type { FrameTickCounts } from '../shared-pacer.js';
import type { FromWorker, OpenSession, ToWorker, WireAddress, WireStats } from './protocol.js';
import type { ThreadPriority } from './thread-priority.js';

export interface WorkerSessionEvents {
  /** An RTCP datagram (SRTCP already unprotected) from `source`. */
  onRtcp(msg: Buffer, source: WireAddress): void;
  /** A decoded frame (16 kHz) of the session's received audio. */
  onFrame(pcm: Int16Array, info: AudioFrameInfo): void;
  onDigit(digit: DigitEvent): void;
  onDigitEnd(digit: DigitEnd): void;
  /** The worker's latching rule latched the session to a new source. */
  onLatched(source: WireAddress): void;
  onStats(stats: WireStats): void;
  onSent(pcm: Int16Array): void;
  onError(err: Error): void;
}

export class MediaWorker {
  readonly sessions = new Map<number, { events: WorkerSessionEvents; session: WorkerSession }>();
  readonly opening = new Map<number, (m: Extract<FromWorker, { t: 'opened' }>) => void>();
  readonly waiting = new Map<string, () => void>();
  readonly closing = new Map<number, () => void>();
  ticks: FrameTickCounts = { due: 0, late: 0, skipped: 0 };
  /** Why the thread is gone (it threw, or exited), if it is; the pool gives it no new session. */
  dead: Error | null = null;
  /** The pool is ending it: its exit is no failure. */
  ending = false;
  constructor(
    readonly thread: Worker,
    /** The worker's OS thread id (Linux), for reading its CPU time; null where unknown. */
    readonly osThread: number | null = null,
  ) {
    thread.on('message', (m: FromWorker) => this.onMessage(m));
    // Without a listener a worker's uncaught error would be thrown here and end the process: it
    // ends this thread's sessions instead.
    thread.on('error', (err) => this.died(err));
    thread.on('exit', (code) => this.died(new Error(`the media worker exited with code ${code}`)));
    // An unref'd worker never keeps the process alive on its own; sessions' sockets are its.
    thread.unref();
  }

  post(m: ToWorker, transfer?: Transferable[]): void {
    if (!this.dead) this.thread.postMessage(m, transfer);
  }

  /**
   * The thread is gone (an error is followed by an exit: the first one says why). Opens waiting
   * on it fail, each session hears the error (the call's media is gone; its media timeout ends
   * it), and what waits on a reply is let go.
   */
  private died(err: Error): void {
    if (this.dead || this.ending) return;
    this.dead = err;
    for (const [id, opened] of this.opening) opened({ t: 'opened', id, error: err.message });
    this.opening.clear();
    for (const { events } of this.sessions.values()) events.onError(err);
    for (const release of [...this.waiting.values(), ...this.closing.values()]) release();
    this.waiting.clear();
    this.closing.clear();
    this.sessions.clear();
  }

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'opened':
        this.opening.get(m.id)?.(m);
        this.opening.delete(m.id);
        return;
      case 'batch': {
        this.ticks = m.ticks;
        // Figures first: a latch or frame handled below reads the session's state as of now.
        for (const s of m.stats) this.sessions.get(s.id)?.events.onStats(s);
        for (const [id, address, port] of m.latched)
          this.sessions.get(id)?.events.onLatched({ address, port });
        if (m.data) {
          for (const [id, offset, length, address, port] of m.rtcp) {
            this.sessions.get(id)?.events.onRtcp(Buffer.from(m.data, offset, length), { address, port });
          }
        }
        for (const [id, d] of m.digits) this.sessions.get(id)?.events.onDigit(d);
        if (m.pcm) {
          const pcm = m.pcm;
          for (const [id, offset, samples, concealed, sequence] of m.frames) {
            this.sessions.get(id)?.events.onFrame(pcm.subarray(offset, offset + samples), {
              concealed: concealed === 1,
              sequence,
            });
          }
        }
        for (const [id, d] of m.digitEnds) this.sessions.get(id)?.events.onDigitEnd(d);
        for (const [id, pcm] of m.sent) this.sessions.get(id)?.events.onSent(pcm);
        return;
      }
      case 'done': {
        const key = `${m.id}:${m.req}`;
        this.waiting.get(key)?.();
        this.waiting.delete(key);
        return;
      }
      case 'closed':
        this.closing.get(m.id)?.();
        this.closing.delete(m.id);
        this.sessions.delete(m.id);
        return;
      case 'error':
        this.sessions.get(m.id)?.events.onError(new Error(m.message));
        return;
      case 'ready':
        return;
    }
  }
}

export class WorkerSession {
  private req = 0;
  constructor(
    readonly worker: MediaWorker,
    readonly id: number,
  ) {}

  post(m: ToWorker, transfer?: Transferable[]): void {
    this.worker.post(m, transfer);
  }

  /**
   * Sends a copy of `pcm`, transferred: callers keep their buffers (a cached prompt is played
   * again), and cloning a view would copy all of the buffer under it.
   */
  enqueue(pcm: Int16Array): void {
    const copy = pcm.slice();
    this.worker.post({ t: 'pcm', id: this.id, pcm: copy }, [copy.buffer]);
  }

  sendDigits(digits: string, options: DigitOptions): Promise<void> {
    // A thread that is gone answers nothing.
    if (this.worker.dead) return Promise.resolve();
    const req = ++this.req;
    return new Promise((resolve) => {
      this.worker.waiting.set(`${this.id}:${req}`, resolve);
      this.worker.post({ t: 'digits', id: this.id, req, digits, options });
    });
  }

  /** Protected (SRTCP) and sent by the worker from the session's socket; resolves once sent. */
  sendRtcp(packet: Buffer, to: WireAddress): Promise<void> {
    // A thread that is gone answers nothing.
    if (this.worker.dead) return Promise.resolve();
    const req = ++this.req;
    return new Promise((resolve) => {
      this.worker.waiting.set(`${this.id}:${req}`, resolve);
      this.worker.post({ t: 'rtcp', id: this.id, req, packet, to });
    });
  }

  close(): Promise<void> {
    if (this.worker.dead) return Promise.resolve();
    return new Promise((resolve) => {
      this.worker.closing.set(this.id, resolve);
      this.worker.post({ t: 'close', id: this.id });
    });
  }
}

let bundled: Promise<string> | null = null;

/**
 * Built (dist/) the worker runs its compiled entry; from source (tests under vitest) the entry is
 * bundled once with esbuild, as a worker thread cannot load TypeScript.
 */
async function spawn(workerData: { connect: boolean; nice: number }): Promise<Worker> {
  const entry = new URL('./media-worker-entry.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData });
  bundled ??= import('esbuild').then(async (esbuild) => {
    const out = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('./media-worker-entry.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // A native addon: required at run time (it has a CommonJS entry), not bundled.
      external: ['@evan/opus'],
      write: false,
      logLevel: 'silent',
    });
    return out.outputFiles[0]!.text;
  });
  return new Worker(await bundled, { eval: true, workerData });
}

export interface MediaWorkerPoolOptions {
  /**
   * connect() each call's RTP socket to its peer once latched, so sends skip the address lookup
   * (default true; false measures plain send-to).
   */
  connectSockets?: boolean;
  /**
   * The nice value each worker thread asks for (thread-priority.ts): below 0 lets media win the
   * CPU from the main thread when the machine is short of it; 0 leaves scheduling alone.
   */
  nice?: number;
}

export class MediaWorkerPool {
  private next = 0;
  private ids = 0;

  private constructor(
    private readonly workers: MediaWorker[],
    /** The workers' scheduling priority as they started (the first refusal's code, if any). */
    readonly priority: ThreadPriority,
  ) {}

  static async start(count: number, options: MediaWorkerPoolOptions = {}): Promise<MediaWorkerPool> {
    if (count < 1) throw new Error('a media worker pool needs at least one worker');
    const workerData = { connect: options.connectSockets ?? true, nice: options.nice ?? 0 };
    const threads = await Promise.all(Array.from({ length: count }, () => spawn(workerData)));
    const started = await Promise.all(
      threads.map(
        (t) =>
          new Promise<ThreadPriority & { thread: number | null }>((resolve, reject) => {
            t.once('error', reject);
            t.once('message', (m: Extract<FromWorker, { t: 'ready' }>) => {
              t.off('error', reject);
              resolve({ nice: m.nice, niceError: m.niceError, thread: m.thread });
            });
          }),
      ),
    );
    const refused = started.find((p) => p.niceError !== null) ?? started[0]!;
    return new MediaWorkerPool(
      threads.map((t, i) => new MediaWorker(t, started[i]!.thread)),
      { nice: refused.nice, niceError: refused.niceError },
    );
  }

  /** The workers' OS thread ids (Linux: /proc/self/task/ID/stat has each one's CPU time). */
  get osThreads(): number[] {
    return this.workers.map((w) => w.osThread).filter((t): t is number => t !== null);
  }

  get size(): number {
    return this.workers.length;
  }

  /** The workers' frame timers' ticks together (the overload signal the main pacer gives too). */
  get ticks(): FrameTickCounts {
    return addTicks(...this.workers.map((w) => w.ticks));
  }

  /** Frames the workers' timers skipped after a stall. */
  get skipped(): number {
    return this.ticks.skipped;
  }

  /** Sessions open on the workers now. */
  get sessions(): number {
    let n = 0;
    for (const w of this.workers) n += w.sessions.size;
    return n;
  }

  /** Binds a session's sockets on the next worker; rejects with the bind error's code (EADDRINUSE). */
  open(spec: Omit<OpenSession, 't' | 'id'>, events: WorkerSessionEvents): Promise<WorkerSession> {
    const live = this.workers.filter((w) => !w.dead);
    if (live.length === 0) return Promise.reject(new Error('no media worker is running'));
    const worker = live[this.next++ % live.length]!;
    const id = ++this.ids;
    return new Promise((resolve, reject) => {
      worker.opening.set(id, (m) => {
        if (m.error) {
          return reject(Object.assign(new Error(m.error), m.code ? { code: m.code } : {}));
        }
        const session = new WorkerSession(worker, id);
        worker.sessions.set(id, { events, session });
        resolve(session);
      });
      worker.post({ ...spec, t: 'open', id });
    });
  }

  /** Whether a session runs on one of this pool's workers. */
  owns(session: WorkerSession): boolean {
    return this.workers.includes(session.worker);
  }

  /**
   * Joins two sessions' received audio each to the other's sender (a bridge), on their workers:
   * within one worker directly, between two over a MessageChannel of their own, never through
   * this thread. Frames for a sender holding more than `maxQueuedMs` are dropped. Returns the
   * unjoin.
   */
  bridge(a: WorkerSession, b: WorkerSession, maxQueuedMs: number): () => void {
    if (a.worker === b.worker) {
      a.post({ t: 'bridge', id: a.id, peer: b.id, port: null, maxQueuedMs });
      b.post({ t: 'bridge', id: b.id, peer: a.id, port: null, maxQueuedMs });
    } else {
      const { port1, port2 } = new MessageChannel();
      a.post({ t: 'bridge', id: a.id, peer: b.id, port: port1, maxQueuedMs }, [port1]);
      b.post({ t: 'bridge', id: b.id, peer: a.id, port: port2, maxQueuedMs }, [port2]);
    }
    let joined = true;
    return () => {
      if (!joined) return;
      joined = false;
      a.post({ t: 'unbridge', id: a.id });
      b.post({ t: 'unbridge', id: b.id });
    };
  }

  async close(): Promise<void> {
    for (const w of this.workers) w.ending = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }
}

/** Tick totals of several frame timers as one. */
export function addTicks(...all: (FrameTickCounts | undefined)[]): FrameTickCounts {
  let due = 0;
  let late = 0;
  let skipped = 0;
  for (const t of all) {
    if (!t) continue;
    due += t.due;
    late += t.late;
    skipped += t.skipped;
  }
  return { due, late, skipped };
}
