// What an adapter that streams from its vendor over HTTP (the LLMs', the streaming TTS) is built
// on: the injected clock, sleep and randomness, the timeouts and retry policy with their defaults
// filled in, and the connection pool, opened on first use and closed by close(). A pool passed
// in belongs to whoever passed it and is left open.
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../../shared/clock.js';
import { DEFAULT_TIMEOUTS, createDispatcher, type HttpTimeouts } from './http-stream.js';
import { DEFAULT_RETRY_POLICY, clockSleep, type RetryPolicy, type Sleep } from './retry.js';

export interface VendorHttpOptions {
  clock?: Clock;
  /** Waits between retries; defaults to a timer on `clock`. Tests pass one that returns at once. */
  sleep?: Sleep;
  /** For backoff jitter. */
  random?: () => number;
  timeouts?: Partial<HttpTimeouts>;
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
}

export class VendorHttp {
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: () => number;
  readonly timeouts: HttpTimeouts;
  readonly retry: RetryPolicy;
  private pool: Dispatcher | undefined;
  private ownsPool = false;

  constructor(options: VendorHttpOptions) {
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? clockSleep(this.clock);
    this.random = options.random ?? Math.random;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.pool = options.dispatcher;
  }

  /** The connection pool requests go through; opened on first use unless one was passed in. */
  dispatcher(): Dispatcher {
    if (!this.pool) {
      this.pool = createDispatcher(this.timeouts.connectMs);
      this.ownsPool = true;
    }
    return this.pool;
  }

  /** Closes the pooled connections this opened (tests, shutdown); a later call opens new ones. */
  async close(): Promise<void> {
    if (!this.ownsPool) return;
    const pool = this.pool;
    this.pool = undefined;
    this.ownsPool = false;
    await pool?.close();
  }
}
