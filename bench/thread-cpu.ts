// CPU time of the service process over a bench run, split by thread: the main thread (SIP,
// admission, the store, the workflow), the media workers (RTP, pacing, codecs), and the rest
// (V8's garbage-collection helpers, libuv's pool). The whole process is process.cpuUsage();
// threads are read from Linux's /proc/self/task/ID/stat (clock ticks of 10 ms: fine over a run
// of seconds). Elsewhere only the total is known.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface CpuSplit {
  /** All of the process, ms. */
  total: number;
  /** The main thread, ms (NaN where threads cannot be read). */
  main: number;
  /** The media worker threads together, ms. */
  workers: number;
  /** Everything else (GC helpers, libuv's pool), ms. */
  other: number;
}

/** user + system ms of a /proc stat file (a process's or a thread's), or NaN. */
function statCpuMs(file: string): number {
  try {
    const stat = readFileSync(file, 'utf8');
    // Fields after the command name (which may hold spaces, in parentheses): utime is the 14th
    // field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** user + system ms of one thread of this process, or NaN. */
export const threadCpuMs = (tid: number): number => statCpuMs(`/proc/self/task/${tid}/stat`);

/** user + system ms of another process so far (sipp, the baseline), or NaN. */
export const processCpuMs = (pid: number | undefined): number =>
  pid === undefined ? NaN : statCpuMs(`/proc/${pid}/stat`);

/** Starts counting; the returned function gives the CPU spent since, split by thread. */
export function cpuSince(workerThreads: readonly number[]): () => CpuSplit {
  const read = () => {
    const usage = process.cpuUsage();
    return {
      total: (usage.user + usage.system) / 1000,
      main: threadCpuMs(process.pid),
      workers: workerThreads.reduce((sum, t) => sum + threadCpuMs(t), 0),
    };
  };
  const before = read();
  return () => {
    const after = read();
    const total = after.total - before.total;
    const main = after.main - before.main;
    const workers = after.workers - before.workers;
    return { total, main, workers, other: total - main - workers };
  };
}

/** "12.3 ms (main 7.1, media workers 4.0, other threads 1.2)" per call. */
export function perCall(cpu: CpuSplit, calls: number): string {
  const n = Math.max(1, calls);
  const ms = (v: number) => (v / n).toFixed(2);
  if (!Number.isFinite(cpu.main)) return `${ms(cpu.total)} ms`;
  return (
    `${ms(cpu.total)} ms (main thread ${ms(cpu.main)}, media workers ${ms(cpu.workers)}, ` +
    `other threads ${ms(cpu.other)})`
  );
}

/**
 * The set-up rate a CPU cost per call allows: all `cores` busy, or the main thread alone busy (it
 * runs one call's signalling, store and workflow after another), whichever comes first.
 */
export function impliedRate(cpu: CpuSplit, calls: number, cores: number): { rate: number; bound: string } {
  const n = Math.max(1, calls);
  const byCores = (cores * 1000) / (cpu.total / n);
  const byMain = Number.isFinite(cpu.main) ? 1000 / (cpu.main / n) : Infinity;
  return byMain < byCores
    ? { rate: byMain, bound: 'the main thread is the limit' }
    : { rate: byCores, bound: `all ${cores} cores are the limit` };
}
