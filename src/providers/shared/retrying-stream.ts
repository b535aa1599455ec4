// Runs a streaming provider call with retries that stop at the first output: once the caller has
// heard part of an answer (text, audio), trying again would repeat it, so a later failure is final.
import type { RetryableFailure } from './failure.js';
import { retryDelayMs, type RetryPolicy, type Sleep } from './retry.js';

export interface RetryingStream<T> {
  /** One attempt; `attempt` counts from 1. */
  run(attempt: number): AsyncIterable<T>;
  /** Whether an item is output the caller acts on (after which no retry happens). */
  isOutput(item: T): boolean;
  /** Any thrown value as the family's error class. */
  normalize(err: unknown): Error & RetryableFailure;
  policy: RetryPolicy;
  sleep: Sleep;
  random: () => number;
  signal?: AbortSignal;
}

export async function* retryingStream<T>(spec: RetryingStream<T>): AsyncGenerator<T> {
  let spoke = false;
  for (let attempt = 1; ; attempt++) {
    try {
      for await (const item of spec.run(attempt)) {
        if (!spoke && spec.isOutput(item)) spoke = true;
        yield item;
      }
      return;
    } catch (err) {
      // The caller's own abort (barge-in, hangup) is not a failure to recover from.
      if (spec.signal?.aborted) throw err;
      const e = spec.normalize(err);
      const delay = spoke ? undefined : retryDelayMs(e, attempt - 1, spec.policy, spec.random);
      if (delay === undefined) throw e;
      await spec.sleep(delay, spec.signal);
    }
  }
}
