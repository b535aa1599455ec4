import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { ExpiringCache } from './expiring-cache.js';

describe('ExpiringCache', () => {
  it('keeps a value until its time is up on the clock, then forgets it', () => {
    const clock = new FakeClock();
    const cache = new ExpiringCache<string, number>(clock, 1000);
    cache.set('a', 1, cache.stamp);
    clock.advance(999);
    expect(cache.get('a')).toBe(1);
    clock.advance(1);
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps null as a value (known to be none), apart from not cached', () => {
    const cache = new ExpiringCache<string, string | null>(new FakeClock(), 1000);
    cache.set('n', null, cache.stamp);
    expect(cache.get('n')).toBeNull();
    expect(cache.get('m')).toBeUndefined();
  });

  it('refuses what a read begun before a clear brings back', () => {
    const cache = new ExpiringCache<string, number>(new FakeClock(), 1000);
    const stamp = cache.stamp;
    cache.clear(); // the news arrives while the read is still out
    cache.set('a', 1, stamp);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 2, cache.stamp);
    expect(cache.get('a')).toBe(2);
  });

  it('holds at most maxEntries: a full cache starts over', () => {
    const cache = new ExpiringCache<number, number>(new FakeClock(), 1000, 3);
    for (let i = 0; i < 3; i++) cache.set(i, i, cache.stamp);
    expect(cache.get(2)).toBe(2);
    cache.set(3, 3, cache.stamp);
    expect([cache.get(0), cache.get(1), cache.get(2), cache.get(3)]).toEqual([
      undefined,
      undefined,
      undefined,
      3,
    ]);
  });
});
