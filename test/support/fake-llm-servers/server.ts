// A local HTTP server (127.0.0.1, port 0) that plays a streaming vendor: it records each request
// and answers with the next queued reply, streaming frames (SSE text for LLMs, audio bytes for
// TTS) the way the vendor does. Used by the adapter tests and reusable by benchmarks (queue turns,
// or set a default reply for every call).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicFrames } from './anthropic.js';
import { geminiFrames } from './gemini.js';
import { openAiFrames } from './openai.js';
import type { FakeTurn } from './turn.js';

/** `router` is the OpenAI format with the keep-alive comments an aggregator sends. */
export type FakeVendor = 'openai' | 'router' | 'anthropic' | 'gemini';

export interface RecordedRequest {
  method: string;
  /** Path with query string. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined if it was not JSON). */
  body: unknown;
}

export type FakeReply =
  /** A 200 (or `status`) event stream. */
  | {
      kind: 'stream';
      frames: (string | Uint8Array)[];
      status?: number;
      headers?: Record<string, string>;
      /** Write only this many frames, then hold the stream open until release() or the client leaves. */
      holdAfter?: number;
      /**
       * Real milliseconds to wait before the first frame: for benchmarks that need a vendor with a
       * fixed time to first token. Tests use holdAfter/release or a fake clock instead.
       */
      delayMs?: number;
      /** Write each frame in two pieces cut mid-line, to exercise the client's reassembly. */
      splitFrames?: boolean;
    }
  /** A JSON error body with a status, e.g. 429 with Retry-After. */
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer (timeouts). */
  | { kind: 'hang' };

export interface FakeVendorServer<T> {
  /** The base URL to configure the adapter with. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queues a scripted turn in this vendor's wire format. */
  reply(turn: T, options?: { holdAfter?: number; splitFrames?: boolean; contentType?: string }): void;
  /** Queues any reply. */
  replyRaw(reply: FakeReply): void;
  /** Used when the queue is empty (benchmarks); by default an empty queue answers 500. */
  setDefault(turn: T | undefined, options?: { delayMs?: number }): void;
  /** The frames of a turn in this vendor's format. */
  frames(turn: T): (string | Uint8Array)[];
  /** Resolves when `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Resolves when a held or hanging response's client has gone away. */
  waitForClientGone(): Promise<void>;
  /** Lets held streams write their remaining frames. */
  release(): void;
  close(): Promise<void>;
}

export interface FakeLlmServer extends FakeVendorServer<FakeTurn> {
  readonly vendor: FakeVendor;
}

const BUILDERS: Record<FakeVendor, (turn: FakeTurn) => string[]> = {
  openai: (turn) => openAiFrames(turn),
  router: (turn) => openAiFrames(turn, { routerComments: true }),
  anthropic: anthropicFrames,
  gemini: geminiFrames,
};

export async function startFakeLlmServer(vendor: FakeVendor): Promise<FakeLlmServer> {
  return { vendor, ...(await startFakeVendorServer(BUILDERS[vendor], 'text/event-stream')) };
}

/** A fake streaming vendor whose turns `build` renders as the frames of a response body. */
export async function startFakeVendorServer<T>(
  build: (turn: T) => (string | Uint8Array)[],
  contentType: string,
): Promise<FakeVendorServer<T>> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  let fallbackTurn: T | undefined;
  let fallbackDelayMs: number | undefined;
  let waiters: { count: number; resolve: () => void }[] = [];
  let goneWaiters: (() => void)[] = [];
  let releases: (() => void)[] = [];

  const releaseAll = () => {
    const r = releases;
    releases = [];
    for (const f of r) f();
  };
  const clientGone = () => {
    const w = goneWaiters;
    goneWaiters = [];
    for (const r of w) r();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    waiters = waiters.filter((w) => (requests.length >= w.count ? (w.resolve(), false) : true));
    const reply: FakeReply =
      queue.shift() ??
      (fallbackTurn
        ? { kind: 'stream', frames: build(fallbackTurn), delayMs: fallbackDelayMs }
        : { kind: 'error', status: 500, body: { error: { message: 'no scripted reply' } } });
    res.on('close', () => {
      if (!res.writableFinished) clientGone();
    });
    if (reply.kind === 'hang') return;
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    }
    res.writeHead(reply.status ?? 200, {
      'content-type': contentType,
      'cache-control': 'no-cache',
      ...reply.headers,
    });
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    for (let i = 0; i < reply.frames.length; i++) {
      if (reply.holdAfter !== undefined && i === reply.holdAfter) {
        await new Promise<void>((resolve) => {
          releases.push(resolve);
          res.on('close', resolve);
        });
        if (res.destroyed) return;
      }
      const frame = reply.frames[i]!;
      if (reply.splitFrames && frame.length > 2) {
        // Strings split mid-line, byte frames mid-sample: the client must reassemble both.
        const cut = Math.floor(frame.length / 2);
        res.write(frame.slice(0, cut));
        res.write(frame.slice(cut));
      } else {
        res.write(frame);
      }
    }
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.destroy(err as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    reply(turn, options = {}) {
      const { contentType: type, ...rest } = options;
      queue.push({
        kind: 'stream',
        frames: build(turn),
        ...rest,
        ...(type ? { headers: { 'content-type': type } } : {}),
      });
    },
    replyRaw(reply) {
      queue.push(reply);
    },
    setDefault(turn, options = {}) {
      fallbackTurn = turn;
      fallbackDelayMs = options.delayMs;
    },
    frames: build,
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    waitForClientGone() {
      return new Promise((resolve) => goneWaiters.push(resolve));
    },
    release: releaseAll,
    async close() {
      releaseAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
