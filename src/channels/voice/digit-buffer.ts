// Keypad digits of a call, buffered from the moment the channel exists: keys pressed during a
// prompt, or before a collect node starts, wait here for the next read (docs/workflow-nodes.md: digits pressed
// while a prompt plays barge in and are counted). Same semantics as the text channel's digits.
import { abortError, type DigitOptions } from '../channel.js';
import type { Clock, TimerHandle } from '../../shared/clock.js';

const DTMF_KEYS = /^[0-9*#A-D]$/;

export class DigitBuffer {
  private digits: string[] = [];
  private closed = false;
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(digit: string) => void>();

  constructor(private readonly clock: Clock) {}

  /** Keys as they arrive (one per press; a string of several is taken key by key). */
  push(keys: string): void {
    for (const key of keys.toUpperCase()) {
      if (!DTMF_KEYS.test(key)) continue;
      this.digits.push(key);
      for (const l of [...this.listeners]) l(key);
    }
    for (const w of [...this.waiters]) w();
  }

  /** Called for every key as it arrives (barge-in), whether or not a read is waiting. */
  onDigit(listener: (digit: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.digits = [];
  }

  /** No more keys will come: waiting and later reads get null (silence) once the buffer is empty. */
  close(): void {
    this.closed = true;
    for (const w of [...this.waiters]) w();
  }

  /** The next buffered key, or the next one pressed; null on timeout; rejects on abort. */
  next(options: DigitOptions): Promise<string | null> {
    const { signal, timeoutMs } = options;
    if (signal.aborted) return Promise.reject(abortError(signal));
    const first = this.digits.shift();
    if (first !== undefined) return Promise.resolve(first);
    if (this.closed || (timeoutMs !== undefined && timeoutMs <= 0)) return Promise.resolve(null);
    return new Promise<string | null>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const cleanup = (): void => {
        this.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        if (timer) this.clock.clearTimeout(timer);
      };
      const check = (): void => {
        const key = this.digits.shift();
        if (key !== undefined || this.closed) {
          cleanup();
          resolve(key ?? null);
        }
      };
      const onAbort = (): void => {
        cleanup();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = this.clock.setTimeout(() => {
          cleanup();
          resolve(null);
        }, timeoutMs);
      }
      this.waiters.add(check);
    });
  }
}
