import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { MemoryRateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

describe('MemoryRateLimiter (sliding window on a fake clock)', () => {
  it('allows the limit, then refuses with Retry-After until the oldest request leaves the window', async () => {
    const clock = new FakeClock();
    const rl = new MemoryRateLimiter(120, clock);
    for (let i = 0; i < 120; i++) {
      const d = await rl.hit('ws');
      expect(d.allowed).toBe(true);
      expect(d.remaining).toBe(119 - i);
    }
    const refused = await rl.hit('ws');
    expect(refused).toEqual({ allowed: false, limit: 120, remaining: 0, retryAfterSeconds: 60 });
    clock.advance(59_999);
    expect((await rl.hit('ws')).allowed).toBe(false);
    clock.advance(1);
    expect((await rl.hit('ws')).allowed).toBe(true);
  });

  it('never lets a burst straddling a minute boundary pass the limit in any 60 s', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const rl = new MemoryRateLimiter(120, clock);
    clock.advance(59_000); // end of the first minute
    let accepted = 0;
    for (let i = 0; i < 120; i++) if ((await rl.hit('ws')).allowed) accepted++;
    clock.advance(2_000); // start of the next minute: a fixed window would reset here
    for (let i = 0; i < 120; i++) if ((await rl.hit('ws')).allowed) accepted++;
    expect(accepted).toBe(120);
  });

  it('counts workspaces apart and does not log refused requests', async () => {
    const clock = new FakeClock();
    const rl = new MemoryRateLimiter(2, clock);
    await rl.hit('a');
    await rl.hit('a');
    expect((await rl.hit('a')).allowed).toBe(false);
    expect((await rl.hit('b')).allowed).toBe(true);
    clock.advance(30_000);
    for (let i = 0; i < 10; i++) await rl.hit('a'); // refused, not logged
    clock.advance(30_000);
    expect((await rl.hit('a')).allowed).toBe(true);
  });

  it('spreads evenly: requests at 1 per 0.5 s keep exactly 120 in the window', async () => {
    const clock = new FakeClock();
    const rl = new MemoryRateLimiter(120, clock);
    let refused = 0;
    for (let i = 0; i < 600; i++) {
      if (!(await rl.hit('ws')).allowed) refused++;
      clock.advance(500);
    }
    expect(refused).toBe(0);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(Boolean(redisUrl))('RedisRateLimiter against the real Redis', () => {
  it('enforces the same window across two limiter instances (two nodes)', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}:`;
    const a = new RedisRateLimiter(redisUrl!, 5, prefix);
    const b = new RedisRateLimiter(redisUrl!, 5, prefix);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await a.hit('ws'), await b.hit('ws'));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    const last = results.at(-1)!;
    expect(last.allowed).toBe(false);
    expect(last.remaining).toBe(0);
    expect(last.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(last.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await a.hit('other')).remaining).toBe(4);
    await a.close();
    await b.close();
  });
});

describe('MemoryRateLimiter with a large limit', () => {
  it('keeps the exact sliding window while its ring grows and wraps', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const rl = new MemoryRateLimiter(1000, clock);
    // 600 requests over 30 s, then 400 more: the ring grows past its first sizes.
    for (let i = 0; i < 600; i++) {
      expect(rl.hitSync('ws').allowed).toBe(true);
      clock.advance(50);
    }
    for (let i = 0; i < 400; i++) expect(rl.hitSync('ws').remaining).toBe(399 - i);
    expect(rl.hitSync('ws')).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    // The first 20 leave the window 1 s apart from the first; exactly that many get in again.
    clock.advance(30_000 + 1_000);
    let accepted = 0;
    while (rl.hitSync('ws').allowed) accepted++;
    expect(accepted).toBe(21);
    // Much later everything has left: the whole limit again, the ring reused from its wrapped state.
    clock.advance(60_000);
    for (let i = 0; i < 1000; i++) expect(rl.hitSync('ws').allowed).toBe(true);
    expect(rl.hitSync('ws').allowed).toBe(false);
  });
});
