// The embedded decoder runs on a worker thread: decoding an utterance takes 40-150 ms of CPU per
// second of audio, in one synchronous WebAssembly call, which on the main thread would hold every
// call's RTP pacing on this node for that long. The worker loads the model once (about half a
// second), then decodes one utterance at a time; jobs queue in order, here on the main thread, so
// a job whose call has gone (its signal aborted) leaves the queue at once instead of being decoded
// behind a backlog nobody waits for.
//
// The worker's code is a small script run with `eval` (the package is ESM-only and loaded with a
// dynamic import), so the same code runs from the TypeScript sources under test and from dist/.
import { Worker } from 'node:worker_threads';

export interface DecoderModel {
  /** file: URL of soundswallower's Node entry. */
  moduleUrl: string;
  /** Its model/ folder, with a trailing slash. */
  modelBase: string;
  /** Decoder configuration (hmm, dict, featparams, samprate, beams …). */
  config: Record<string, string | number | boolean>;
}

export interface DecodeResult {
  text: string;
  /** Time the worker spent in the decoder (ms). */
  decodeMs: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let decoder;
let grammar = null;
const ready = (async () => {
  const { default: createModule } = await import(workerData.moduleUrl);
  const ss = await createModule({ modelBase: workerData.modelBase, print: () => {}, printErr: () => {} });
  decoder = new ss.Decoder(workerData.config);
  await decoder.initialize();
})();
parentPort.on('message', async (job) => {
  try {
    await ready;
    if (job.grammar !== grammar) {
      // Beams are read when the grammar's search is built.
      for (const [key, value] of Object.entries(job.search)) decoder.set_config(key, value);
      decoder.set_grammar(job.grammar);
      grammar = job.grammar;
    }
    const started = performance.now();
    decoder.start();
    decoder.process_audio(job.pcm, false, true);
    decoder.stop();
    parentPort.postMessage({ id: job.id, text: decoder.get_text(), decodeMs: performance.now() - started });
  } catch (err) {
    grammar = null;
    parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
  }
});
`;

interface Pending {
  id: number;
  pcm: Float32Array;
  grammar: string;
  search: Record<string, number>;
  resolve: (r: DecodeResult) => void;
  reject: (e: Error) => void;
  /** Removes the abort listener. */
  done: () => void;
}

/**
 * One decoder thread; `decode` may be called concurrently (jobs run in order, one at a time on the
 * thread, the rest wait here).
 */
export class DecoderWorker {
  private worker: Worker | null = null;
  /** Jobs not started yet, in order. */
  private readonly queue: Pending[] = [];
  /** The job the thread is decoding. */
  private running: Pending | null = null;
  private seq = 0;

  constructor(private readonly model: DecoderModel) {}

  /** Starts the thread and the model load now (otherwise the first decode does). */
  warm(): void {
    this.thread();
  }

  /** Jobs waiting or decoding. */
  get backlog(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  /**
   * Decodes float samples in [-1, 1] at the model's rate against a JSGF grammar, with these
   * search beams (`beam`, `pbeam`, `wbeam`). An abort rejects at once with the signal's reason:
   * a waiting job leaves the queue, a running one's result is dropped when it comes.
   */
  decode(
    pcm: Float32Array,
    grammar: string,
    search: Record<string, number>,
    signal?: AbortSignal,
  ): Promise<DecodeResult> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const id = ++this.seq;
    return new Promise<DecodeResult>((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.queue.indexOf(job);
        if (at >= 0) this.queue.splice(at, 1);
        // A running job stays `running` until its answer comes: the thread is busy until then.
        reject(signal!.reason as Error);
      };
      const job: Pending = {
        id,
        pcm,
        grammar,
        search,
        resolve,
        reject,
        done: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error('the decoder was closed'));
    await worker?.terminate();
  }

  /** Starts the next job when the thread is free. */
  private pump(): void {
    if (this.running) return;
    const job = this.queue.shift();
    if (!job) {
      // Only a thread with work keeps the process alive.
      this.worker?.unref();
      return;
    }
    const worker = this.thread();
    this.running = job;
    worker.ref();
    worker.postMessage({ id: job.id, pcm: job.pcm, grammar: job.grammar, search: job.search }, [
      job.pcm.buffer as ArrayBuffer,
    ]);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.model });
    worker.on('message', (m: { id: number; text?: string; decodeMs?: number; error?: string }) => {
      const job = this.running;
      if (!job || job.id !== m.id) return;
      this.running = null;
      job.done();
      // Settling an aborted job again does nothing.
      if (m.error !== undefined) job.reject(new Error(m.error));
      else job.resolve({ text: m.text ?? '', decodeMs: m.decodeMs ?? 0 });
      this.pump();
    });
    const lost = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      this.failAll(err);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the decoder thread exited (${code})`)));
    // After the listeners: adding a 'message' listener refs the thread again, and an idle thread
    // that holds a reference keeps a stopped service's process from exiting.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    const jobs = [...(this.running ? [this.running] : []), ...this.queue.splice(0)];
    this.running = null;
    for (const j of jobs) {
      j.done();
      j.reject(err);
    }
  }
}
