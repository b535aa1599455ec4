// Keypad digits of a call, buffered from the moment the channel exists: keys pressed during a
// prompt, or before a collect node starts, wait here for the next read (docs/workflow-nodes.md: digits pressed
// while a prompt plays barge in and are counted). Same semantics as the text channel's digits.
import type { DigitOptions } from '../channel.js';
import type { Clock } from '../../shared/clock.js';
import { InputWaiters } from '../../shared/input-wait.js';

const DTMF_KEYS = /^[0-9*#A-D]$/;

export class DigitBuffer {
  private digits: string[] = [];
  private closed = false;
  private readonly waiters: InputWaiters;
  private readonly listeners = new Set<(digit: string) => void>();

  constructor(clock: Clock) {
    this.waiters = new InputWaiters(clock);
  }

  /** Keys as they arrive (one per press; a string of several is taken key by key). */
  push(keys: string): void {
    for (const key of keys.toUpperCase()) {
      if (!DTMF_KEYS.test(key)) continue;
      this.digits.push(key);
      for (const l of [...this.listeners]) l(key);
    }
    this.waiters.wake();
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
    this.waiters.wake();
  }

  /** The next buffered key, or the next one pressed; null on timeout; rejects on abort. */
  next(options: DigitOptions): Promise<string | null> {
    return this.waiters.waitFor(() => this.digits.shift(), { ...options, silent: () => this.closed });
  }
}
