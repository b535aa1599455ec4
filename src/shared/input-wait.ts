// Waiting for input that is pushed in: a reader polls for a value, and when there is none it waits
// until the writer wakes it, its timeout passes on the injected clock, or its signal aborts. The
// channels read typed text and keypad digits this way.
import type { Clock, TimerHandle } from './clock.js';

/** What an abortable wait rejects with: the signal's reason, or a DOMException named AbortError. */
export function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

export interface WaitOptions {
  signal: AbortSignal;
  /** Resolve with null after this long; undefined waits for ever, 0 or less does not wait. */
  timeoutMs?: number;
  /** True once no more input can come: a wait with nothing to read then resolves with null. */
  silent?: () => boolean;
}

/** The readers waiting for input; `wake()` after every push (or close) lets each poll again. */
export class InputWaiters {
  private readonly waiters = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with poll()'s first defined value, or null on timeout or silence; rejects when the
   * signal aborts.
   */
  waitFor<T>(poll: () => T | undefined, options: WaitOptions): Promise<T | null> {
    const { signal, timeoutMs, silent = () => false } = options;
    if (signal.aborted) return Promise.reject(abortError(signal));
    const first = poll();
    if (first !== undefined) return Promise.resolve(first);
    if (silent() || (timeoutMs !== undefined && timeoutMs <= 0)) return Promise.resolve(null);
    return new Promise<T | null>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const settle = (): void => {
        this.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        if (timer) this.clock.clearTimeout(timer);
      };
      const check = (): void => {
        const value = poll();
        if (value !== undefined) {
          settle();
          resolve(value);
        } else if (silent()) {
          settle();
          resolve(null);
        }
      };
      const onAbort = (): void => {
        settle();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = this.clock.setTimeout(() => {
          settle();
          resolve(null);
        }, timeoutMs);
      }
      this.waiters.add(check);
    });
  }
}
