// A media worker's scheduling priority. On a machine short of CPU, the threads that pace frames
// must win it over the main thread (API, signalling, the store): a frame late by 20 ms is a hole a
// caller hears, a request late by 20 ms is not. Linux keeps a nice value per thread, so a worker
// can lower its own (a higher priority) without touching the rest of the process; that takes root,
// CAP_SYS_NICE or an RLIMIT_NICE allowing it (systemd's LimitNICE=), and without them the worker
// keeps the default and says why.
import { getPriority, setPriority } from 'node:os';

export interface ThreadPriority {
  /** The calling thread's nice value now (-20 highest .. 19 lowest). */
  nice: number;
  /** Why the asked value was not applied (the system error's code), or null. */
  niceError: string | null;
}

/** Sets the calling thread's nice value to `nice` (0 asks for nothing). */
export function applyThreadNice(nice: number): ThreadPriority {
  let niceError: string | null = null;
  if (nice !== 0) {
    try {
      // pid 0 names the calling thread on Linux, not the whole process.
      setPriority(0, nice);
    } catch (err) {
      niceError = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
  }
  return { nice: getPriority(0), niceError };
}
