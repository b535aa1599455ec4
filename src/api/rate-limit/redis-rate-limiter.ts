// The same sliding log shared by every node through Redis: one Lua script, atomic, on Redis's own
// clock (TIME) so nodes with skewed clocks still agree.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { WINDOW_MS, type RateDecision, type RateLimiter } from './rate-limiter.js';

const SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', key, window)
  return {1, limit - count - 1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, 0, tonumber(oldest[2]) + window - now}
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private seq = 0;
  private readonly nodeTag = randomBytes(6).toString('hex');

  constructor(
    url: string,
    readonly limit: number,
    private readonly prefix = 'switchboard:rl:',
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    this.redis.defineCommand('slidingHit', { numberOfKeys: 1, lua: SCRIPT });
  }

  async hit(key: string): Promise<RateDecision> {
    const member = `${this.nodeTag}:${++this.seq}`;
    const [allowed, remaining, retryMs] = (await (
      this.redis as unknown as {
        slidingHit(k: string, limit: number, window: number, member: string): Promise<number[]>;
      }
    ).slidingHit(this.prefix + key, this.limit, WINDOW_MS, member)) as [number, number, number];
    return {
      allowed: allowed === 1,
      limit: this.limit,
      remaining,
      retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(retryMs / 1000)),
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
