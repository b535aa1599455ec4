import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { InputWaiters } from './input-wait.js';

describe('InputWaiters', () => {
  const setup = () => {
    const clock = new FakeClock();
    const queue: string[] = [];
    let closed = false;
    const waiters = new InputWaiters(clock);
    const read = (timeoutMs?: number, signal = new AbortController().signal) =>
      waiters.waitFor(() => queue.shift(), { signal, timeoutMs, silent: () => closed });
    const push = (v: string) => {
      queue.push(v);
      waiters.wake();
    };
    const close = () => {
      closed = true;
      waiters.wake();
    };
    return { clock, queue, read, push, close };
  };

  it('returns what is already there without waiting, even when silent', async () => {
    const { read, push, close } = setup();
    push('1');
    close();
    await expect(read(0)).resolves.toBe('1');
  });

  it('resolves with the next value pushed, and only the waiting reader takes it', async () => {
    const { read, push, queue } = setup();
    const pending = read();
    push('7');
    await expect(pending).resolves.toBe('7');
    push('8');
    expect(queue).toEqual(['8']);
  });

  it('resolves with null when the timeout passes on the clock, and not before', async () => {
    const { clock, read, push, queue } = setup();
    const pending = read(500);
    let settled: string | null | undefined;
    void pending.then((v) => (settled = v));
    clock.advance(499);
    await Promise.resolve();
    expect(settled).toBeUndefined();
    clock.advance(1);
    await expect(pending).resolves.toBeNull();
    push('9');
    expect(queue).toEqual(['9']);
    expect(clock.pending()).toBe(0);
  });

  it('does not wait at all for a timeout of 0, and resolves null at once when silent', async () => {
    const { read, close } = setup();
    await expect(read(0)).resolves.toBeNull();
    close();
    await expect(read()).resolves.toBeNull();
  });

  it('a waiting read resolves with null when input closes', async () => {
    const { clock, read, close } = setup();
    const pending = read(10_000);
    close();
    await expect(pending).resolves.toBeNull();
    expect(clock.pending()).toBe(0);
  });

  it("rejects with the signal's reason on abort, before or while waiting", async () => {
    const { clock, read } = setup();
    const before = new AbortController();
    before.abort(new Error('gone'));
    await expect(read(undefined, before.signal)).rejects.toThrow('gone');
    const during = new AbortController();
    const pending = read(1000, during.signal);
    during.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(clock.pending()).toBe(0);
  });
});
