import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveEvent, LiveMessage } from './live-bus.js';
import { MemoryLiveBus } from './live-bus.js';
import { createLiveBus, LIVE_CHANNEL, RedisLiveBus } from './redis-live-bus.js';

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { logger, lines };
}

/** Collects one bus's messages; next() resolves with the next one to arrive (or one not yet read). */
function inbox(bus: { subscribe(h: (m: LiveMessage) => void): () => void }) {
  const got: LiveMessage[] = [];
  let read = 0;
  const waiting: Array<() => void> = [];
  bus.subscribe((m) => {
    got.push(m);
    for (const w of waiting.splice(0)) w();
  });
  const next = async (): Promise<LiveMessage> => {
    while (read >= got.length) await new Promise<void>((resolve) => waiting.push(resolve));
    return got[read++]!;
  };
  return { got, next };
}

const END: LiveEvent = {
  kind: 'session.end',
  session_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  reason: 'force_ended',
};
const CANCEL: LiveEvent = { kind: 'call.cancel', call_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c' };

describe('createLiveBus', () => {
  it('is in-process without REDIS_URL', async () => {
    const bus = createLiveBus({ redisUrl: undefined, nodeId: 'n' }, pino({ level: 'silent' }));
    expect(bus).toBeInstanceOf(MemoryLiveBus);
    await bus.close();
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(Boolean(redisUrl))('RedisLiveBus against the real Redis', () => {
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });

  /** Two nodes' buses on a channel of this test's own (parallel runs share the Redis). */
  async function twoNodes(bLogger = pino({ level: 'silent' })) {
    const channel = `test:live:${randomBytes(4).toString('hex')}`;
    const a = new RedisLiveBus({
      url: redisUrl!,
      nodeId: 'node-a',
      logger: pino({ level: 'silent' }),
      channel,
    });
    const b = new RedisLiveBus({ url: redisUrl!, nodeId: 'node-b', logger: bLogger, channel });
    open.push(a, b);
    // A message published before the other side's SUBSCRIBE is acknowledged would be lost.
    await Promise.all([a.ready(), b.ready()]);
    return { a, b, channel };
  }

  it("delivers one node's events to the other, with the sender, and not back to the sender", async () => {
    const { a, b } = await twoNodes();
    const atA = inbox(a);
    const atB = inbox(b);
    await a.publish(END);
    expect(await atB.next()).toEqual({ ...END, node_id: 'node-a', origin: a.origin });
    await b.publish(CANCEL);
    // Redis hands a subscriber the channel's messages in publish order: once b's arrived at a,
    // a's own earlier one would have come first had it been handed back.
    expect(await atA.next()).toEqual({ ...CANCEL, node_id: 'node-b', origin: b.origin });
    expect(atA.got).toHaveLength(1);
    expect(atB.got).toHaveLength(1);
  });

  it('sends on the switchboard:live channel as plain JSON by default', async () => {
    const bus = new RedisLiveBus({ url: redisUrl!, nodeId: 'node-a', logger: pino({ level: 'silent' }) });
    const listener = new Redis(redisUrl!);
    open.push(bus, { close: () => listener.quit() });
    expect(bus.channel).toBe(LIVE_CHANNEL);
    const heard = new Promise<string>((resolve) =>
      listener.on('message', (_c: string, raw: string) => resolve(raw)),
    );
    await listener.subscribe(LIVE_CHANNEL);
    await bus.publish(CANCEL);
    expect(JSON.parse(await heard)).toEqual({ ...CANCEL, node_id: 'node-a', origin: bus.origin });
  });

  it('logs and ignores malformed messages on the channel and keeps delivering', async () => {
    const rec = recordingLogger();
    const { a, b, channel } = await twoNodes(rec.logger);
    const atB = inbox(b);
    const raw = new Redis(redisUrl!);
    open.push({ close: () => raw.quit() });
    await raw.publish(channel, 'not json at all');
    await raw.publish(channel, JSON.stringify({ kind: 'session.end', session_id: 's1' }));
    await raw.publish(
      channel,
      JSON.stringify({ kind: 'call.redirect', call_id: 'c', node_id: 'x', origin: 'y' }),
    );
    await raw.publish(channel, JSON.stringify([1, 2, 3]));
    // A handler that throws is logged; the next message still arrives.
    b.subscribe(() => {
      throw new Error('handler bug');
    });
    await a.publish(END);
    expect(await atB.next()).toMatchObject({ ...END, node_id: 'node-a' });
    expect(atB.got).toHaveLength(1);
    const warned = rec.lines.filter((l) => l.msg === 'ignored a malformed live event');
    // b reads the channel in order: all four were logged before a's message reached it.
    expect(warned).toHaveLength(4);
    expect(warned.map((l) => l.problem)).toContain('not JSON');
    expect(warned.map((l) => l.problem)).toContain('unknown kind "call.redirect"');
    expect(rec.lines.filter((l) => l.msg === 'a live event handler failed')).toHaveLength(1);
  });

  it('closes both connections; publishing afterwards fails', async () => {
    const { a } = await twoNodes();
    await a.close();
    await a.close();
    await expect(a.publish(END)).rejects.toThrow();
  });
});

describe('RedisLiveBus without a Redis to reach', () => {
  it('rejects a publish, logs the outage once per connection, and still closes', async () => {
    const rec = recordingLogger();
    // Port 1: nothing listens there, so every connection attempt is refused at once.
    const bus = new RedisLiveBus({ url: 'redis://127.0.0.1:1', nodeId: 'node-a', logger: rec.logger });
    await expect(bus.publish(END)).rejects.toThrow();
    const lost = rec.lines.filter((l) => l.msg === 'live events: Redis connection lost');
    expect(lost.map((l) => l.connection).sort()).toEqual(['pub', 'sub']);
    await bus.close();
    expect(rec.lines.filter((l) => l.msg === 'could not subscribe to live events')).toEqual([]);
  });
});
