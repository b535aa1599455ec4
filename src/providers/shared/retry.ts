// When and how long to wait before trying a failed provider request again. Retries happen only
// before the caller has seen any output (retryingStream enforces that); this module decides delays.
import type { Clock } from '../../shared/clock.js';
import type { RetryableFailure } from './failure.js';

export interface RetryPolicy {
  /** Extra attempts after the first one. */
  maxRetries: number;
  /** First backoff delay; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A Retry-After longer than this is not waited out: the call fails at once so a fallback
   * provider can answer while the caller is still on the line.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  maxRetryAfterMs: 10_000,
};

/**
 * The delay before retry number `attempt` (0 for the first retry), or undefined when the error
 * should not be retried. Timeouts are not retried: a voice caller is waiting, and a second
 * provider (fallback) is the better bet than a second wait on the same one.
 */
export function retryDelayMs(
  err: RetryableFailure,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (!err.retryable || attempt >= policy.maxRetries) return undefined;
  if (err.kind === 'timeout' || err.kind === 'config') return undefined;
  if (err.retryAfterMs !== undefined) {
    return err.retryAfterMs <= policy.maxRetryAfterMs ? err.retryAfterMs : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  // Equal jitter: at least half the ceiling, so retries from many calls spread out but still wait.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Reads `retry-after-ms` (sent by some OpenAI-compatible servers) or `retry-after` (seconds or an
 * HTTP date) into milliseconds.
 */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const raw = first(headers['retry-after'])?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A sleep on the injected clock, cut short (rejecting with the reason) when `signal` aborts. */
export function clockSleep(clock: Clock): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clock.clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}
