// The shared adapter behaviour (retries, timeouts, abort, metrics, configuration), exercised
// through llm_vendor_1 against its fake server. Time runs on a FakeClock; nothing sleeps.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  collect,
  startFakeLlmServer,
  type FakeLlmServer,
} from '../../../test/support/fake-llm-servers/index.js';
import { FakeClock } from '../../shared/clock.js';
import type { HttpLlmOptions, LlmCallMetrics } from './base.js';
import { LlmError, type LlmRequest } from './llm.types.js';
import { OpenAiChatProvider } from './vendor-1-openai.js';

let server: FakeLlmServer;
let clock: FakeClock;
let sleeps: number[];
let metrics: LlmCallMetrics[];
const providers: OpenAiChatProvider[] = [];
const ask: LlmRequest = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };

function make(options: HttpLlmOptions = {}): OpenAiChatProvider {
  const p = new OpenAiChatProvider({
    apiKey: 'k',
    baseUrl: server.baseUrl,
    clock,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    onMetrics: (m) => void metrics.push(m),
    ...options,
  });
  providers.push(p);
  return p;
}

function iterate<T>(stream: AsyncIterable<T>): AsyncIterator<T> {
  return stream[Symbol.asyncIterator]();
}

beforeEach(async () => {
  server = await startFakeLlmServer('openai');
  clock = new FakeClock();
  sleeps = [];
  metrics = [];
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  await server.close();
});

describe('retries', () => {
  it('waits out a 429 Retry-After and then succeeds', async () => {
    server.replyRaw({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '2' },
      body: { error: { message: 'slow down' } },
    });
    server.reply({ text: ['ok'] });
    const events = await collect(make().stream(ask));
    expect(events.map((e) => e.type)).toEqual(['text', 'done']);
    expect(sleeps).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
    expect(metrics[0]).toMatchObject({ outcome: 'ok', attempts: 2 });
  });

  it('prefers retry-after-ms and accepts an HTTP date', async () => {
    server.replyRaw({
      kind: 'error',
      status: 429,
      headers: { 'retry-after-ms': '350', 'retry-after': '9' },
      body: {},
    });
    server.replyRaw({
      kind: 'error',
      status: 503,
      headers: { 'retry-after': new Date(clock.now() + 3000).toUTCString() },
      body: {},
    });
    server.reply({ text: ['ok'] });
    await collect(make().stream(ask));
    expect(sleeps).toEqual([350, 3000]);
  });

  it('backs off exponentially on 5xx and throws the last error when retries run out', async () => {
    for (let i = 0; i < 4; i++)
      server.replyRaw({ kind: 'error', status: 500, body: { error: { message: `boom ${i}` } } });
    const err = await collect(make({ retry: { maxRetries: 3, baseDelayMs: 100 } }).stream(ask)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ status: 500, retryable: true, provider: 'llm_vendor_1' });
    expect((err as Error).message).toContain('boom 3');
    // ceiling 100, 200, 400 with equal jitter at random() = 0.5: 3/4 of each ceiling.
    expect(sleeps).toEqual([75, 150, 300]);
    expect(server.requests).toHaveLength(4);
    expect(metrics[0]).toMatchObject({
      outcome: 'error',
      status: 500,
      attempts: 4,
      timeToFirstTokenMs: undefined,
    });
  });

  it('does not wait out a Retry-After longer than the cap: it fails so a fallback can answer', async () => {
    server.replyRaw({ kind: 'error', status: 429, headers: { 'retry-after': '60' }, body: {} });
    const err = await collect(make().stream(ask)).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429 });
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries once output has reached the caller', async () => {
    // A retryable failure (an upstream error inside the stream) that comes after some text.
    const frames = server.frames({ text: ['partial'], truncate: true });
    server.replyRaw({
      kind: 'stream',
      frames: [...frames, 'data: {"error":{"message":"upstream died","code":502}}\n\n'],
    });
    server.reply({ text: ['again'] });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const ev of make().stream(ask)) if (ev.type === 'text') seen.push(ev.delta);
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LlmError', retryable: true, status: 502 });
    expect(seen).toEqual(['partial']);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries a refused connection', async () => {
    const closed = await startFakeLlmServer('openai');
    const url = closed.baseUrl;
    await closed.close();
    const err = await collect(make({ baseUrl: url, retry: { maxRetries: 1 } }).stream(ask)).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: 'LlmError', retryable: true, status: undefined });
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect(sleeps).toHaveLength(1);
  });
});

describe('timeouts on the injected clock', () => {
  it('fails when the first byte does not come in time, without retrying', async () => {
    server.replyRaw({ kind: 'hang' });
    const it = iterate(make({ timeouts: { firstByteMs: 5000 } }).stream(ask));
    const next = it.next();
    let settled = false;
    next.then(
      () => (settled = true),
      () => (settled = true),
    );
    await server.waitForRequests(1);
    clock.advance(4999);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    const gone = server.waitForClientGone();
    clock.advance(1);
    const err = await next.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as Error).message).toMatch(/first byte timeout after 5000 ms/);
    await gone;
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('fails when the stream goes silent longer than the idle timeout', async () => {
    const frames = server.frames({ text: ['one', 'two'] });
    server.replyRaw({ kind: 'stream', frames, holdAfter: 2 });
    const it = iterate(make({ timeouts: { idleMs: 1000 } }).stream(ask));
    expect(await it.next()).toEqual({ done: false, value: { type: 'text', delta: 'one' } });
    const next = it.next();
    clock.advance(1000);
    const err = await next.catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/idle timeout after 1000 ms/);
    expect(metrics[0]).toMatchObject({ outcome: 'error', timeToFirstTokenMs: 0 });
  });
});

describe('total timeout', () => {
  it('ends an attempt that runs past the total budget, whatever the idle timeout', async () => {
    server.replyRaw({ kind: 'stream', frames: server.frames({ text: ['one', 'two'] }), holdAfter: 2 });
    const it = iterate(make({ timeouts: { totalMs: 1000, idleMs: 60_000 } }).stream(ask));
    expect((await it.next()).value).toEqual({ type: 'text', delta: 'one' });
    const next = it.next();
    clock.advance(1000);
    await expect(next).rejects.toThrow(/total timeout after 1000 ms/);
  });
});

describe('abort', () => {
  it('stops mid-stream with the signal reason and closes the connection', async () => {
    server.replyRaw({ kind: 'stream', frames: server.frames({ text: ['a', 'b'] }), holdAfter: 2 });
    const ctl = new AbortController();
    const it = iterate(make().stream({ ...ask, signal: ctl.signal }));
    expect((await it.next()).value).toEqual({ type: 'text', delta: 'a' });
    const next = it.next();
    const gone = server.waitForClientGone();
    const reason = new Error('barge-in');
    ctl.abort(reason);
    await expect(next).rejects.toBe(reason);
    await gone;
    expect(metrics[0]).toMatchObject({ outcome: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('hung up'));
    await expect(collect(make().stream({ ...ask, signal: ctl.signal }))).rejects.toThrow('hung up');
    expect(server.requests).toHaveLength(0);
  });

  it('closes the connection when the consumer stops reading', async () => {
    server.replyRaw({ kind: 'stream', frames: server.frames({ text: ['a', 'b'] }), holdAfter: 2 });
    const gone = server.waitForClientGone();
    for await (const ev of make().stream(ask)) {
      expect(ev).toEqual({ type: 'text', delta: 'a' });
      break;
    }
    await gone;
    expect(metrics[0]).toMatchObject({ outcome: 'cancelled' });
  });
});

describe('metrics and configuration', () => {
  it('measures time to first token on the monotonic clock and reports tokens', async () => {
    server.replyRaw({
      kind: 'stream',
      frames: server.frames({ text: ['hi'], usage: { input: 7, output: 1 } }),
      holdAfter: 1,
    });
    const it = iterate(make().stream(ask));
    const first = it.next();
    await server.waitForRequests(1);
    clock.advance(420);
    server.release();
    expect((await first).value).toEqual({ type: 'text', delta: 'hi' });
    while (!(await it.next()).done);
    expect(metrics).toEqual([
      {
        provider: 'llm_vendor_1',
        model: 'm',
        outcome: 'ok',
        timeToFirstTokenMs: 420,
        durationMs: 420,
        attempts: 1,
        inputTokens: 7,
        outputTokens: 1,
        finishReason: 'stop',
        status: undefined,
      },
    ]);
  });

  it('keeps a call good when the metrics sink throws', async () => {
    server.reply({ text: ['fine'] });
    const p = make({
      onMetrics: () => {
        throw new Error('sink down');
      },
    });
    expect((await collect(p.stream(ask))).map((e) => e.type)).toEqual(['text', 'done']);
  });

  it('refuses to call the public endpoint without a key, before any request', async () => {
    const p = new OpenAiChatProvider({ clock, onMetrics: (m) => void metrics.push(m) });
    expect(p.baseUrl).toBe('https://api.openai.com');
    const err = await collect(p.stream(ask)).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LlmError', retryable: false });
    expect((err as Error).message).toMatch(/LLM_VENDOR_1_API_KEY/);
    expect(metrics[0]).toMatchObject({ outcome: 'error', attempts: 0 });
  });

  it('lets a custom base URL (a local compatible server) go without a key', async () => {
    server.reply({ text: ['local'] });
    await collect(make({ apiKey: undefined }).stream(ask));
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });
});
