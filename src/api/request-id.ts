// Request ids: UUIDv7-shaped (the time first, so ids sort by arrival), made without a call into
// the OS per request. crypto.randomUUID() draws from a cached pool of random bytes; its first 48
// bits are replaced by the millisecond time and its version nibble by 7. 74 random bits remain,
// plenty for telling requests apart.
import { randomUUID } from 'node:crypto';

let lastMs = -1;
let timePart = '';

export function requestId(nowMs: number = Date.now()): string {
  if (nowMs !== lastMs) {
    const hex = nowMs.toString(16).padStart(12, '0');
    timePart = `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
    lastMs = nowMs;
  }
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; keep "xxx-Vxxx-…" after the 4.
  return timePart + randomUUID().slice(15);
}

const GIVEN = /^[\w.-]{1,128}$/;

/** The caller's X-Request-Id when it is well formed, otherwise a new one. */
export function requestIdFor(given: string | string[] | undefined): string {
  return typeof given === 'string' && GIVEN.test(given) ? given : requestId();
}
