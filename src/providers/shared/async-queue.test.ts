import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './async-queue.js';

describe('AsyncQueue', () => {
  it('hands pushed items to a waiting or later reader, in order, then ends', async () => {
    const q = new AsyncQueue<number>();
    const it = q[Symbol.asyncIterator]();
    const first = it.next();
    q.push(1);
    q.push(2);
    q.end();
    q.push(3); // after the end: dropped
    expect(await first).toEqual({ value: 1, done: false });
    expect(await it.next()).toEqual({ value: 2, done: false });
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it('delivers queued items before a failure, then rejects', async () => {
    const q = new AsyncQueue<string>();
    q.push('a');
    q.fail(new Error('broken'));
    const it = q[Symbol.asyncIterator]();
    expect(await it.next()).toEqual({ value: 'a', done: false });
    await expect(it.next()).rejects.toThrow('broken');
  });

  it('wakes a waiting reader on failure', async () => {
    const q = new AsyncQueue<string>();
    const pending = q[Symbol.asyncIterator]().next();
    q.fail(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
  });
});
