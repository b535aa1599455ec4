// Part 1 of the calls benchmark (calls.bench.ts), set-up rate: sipp calls in at CALLS_BENCH_RATE
// calls/s for CALLS_BENCH_CALLS calls, each hung up after 1 s, our RTP echoed back; prints the
// rate reached and INVITE-to-200 p50/p99 next to the same sipp client against sipp's own UAS, and
// their ratio, and the CPU per call of the service (split by thread) and of sipp's UAS.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import type { BenchNode } from './calls-node.js';
import { SETUP_SCENARIO } from './calls-scenarios.js';
import {
  freeUdpPort,
  percentile,
  responseTimes,
  runSipp,
  sippArgs,
  stat,
  type SippRun,
} from './calls-sipp.js';
import { cpuSince, impliedRate, perCall, processCpuMs } from './thread-cpu.js';

const RATE = Number(process.env.CALLS_BENCH_RATE ?? 120);
const CALLS = Number(process.env.CALLS_BENCH_CALLS ?? 3000);

/** One call first: the prompt cache (espeak-ng's first synthesis) and the statement caches warm. */
export async function warmUp(n: BenchNode): Promise<void> {
  const scenario = SETUP_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  const dir = mkdtempSync(`${tmpdir()}/bc-`);
  const warm = await runSipp(sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, dir, 1, 1), dir);
  rmSync(dir, { recursive: true, force: true });
  if (warm.code !== 0) throw new Error(`warm-up call failed:\n${warm.out.slice(-3000)}`);
}

export async function setupRate(n: BenchNode): Promise<void> {
  const scenario = SETUP_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  await warmUp(n);

  const oursDir = mkdtempSync(`${tmpdir()}/bc-ours-`);
  // The service runs in this process and sipp in its own: our CPU time over the run, per call, is
  // the cost of a call whatever else the machine runs (the rate is not, on a shared machine).
  // sipp echoes every RTP packet we send it (-rtp_echo): media both ways, as a caller's would be.
  const cpuOf = cpuSince(n.node.mediaThreads);
  const windowStart = process.hrtime.bigint() / 1000n;
  const echo =
    process.env.CALLS_BENCH_ECHO === '0'
      ? []
      : ['-mp', String(await freeUdpPort()), '-rtp_echo', '-rtp_buffsize', String(4 << 20)];
  const ours = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, oursDir, RATE, CALLS, echo),
    oursDir,
  );
  const cpu = cpuOf();
  // Under --cpu-prof: the run's span on the profiles' clock (µs), for cpu-profile-summary.ts.
  if (process.execArgv.some((a) => a.startsWith('--cpu-prof'))) {
    console.log(`  profile window: ${windowStart}-${process.hrtime.bigint() / 1000n}`);
  }
  const oursRtt = responseTimes(oursDir);

  // Baseline: the same client against sipp's UAS (answers at once, no work) at the same rate.
  const basePort = await freeUdpPort();
  const uas = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(basePort), '-nostdin'], {
    stdio: 'ignore',
  });
  const baseDir = mkdtempSync(`${tmpdir()}/bc-base-`);
  let base: SippRun;
  let uasMs = NaN;
  try {
    base = await runSipp(sippArgs(`127.0.0.1:${basePort}`, scenario, baseDir, RATE, CALLS), baseDir);
    uasMs = processCpuMs(uas.pid);
  } finally {
    uas.kill('SIGTERM');
  }
  const baseRtt = responseTimes(baseDir);

  const okOurs = stat(ours.out, 'Successful call');
  const okBase = stat(base.out, 'Successful call');
  // Calls are offered at RATE; the last ones end 1 s after they start, so set-up spans seconds - 1.
  const rateOurs = okOurs / Math.max(0.001, ours.seconds - 1);
  const rateBase = okBase / Math.max(0.001, base.seconds - 1);
  console.log(`calls: set-up at ${RATE} calls/s offered, ${CALLS} calls, each hung up by sipp after 1 s`);
  console.log(
    `  switchboard : ${okOurs} ok, ${stat(ours.out, 'Failed call')} failed, ${rateOurs.toFixed(0)} calls/s, ` +
      `INVITE→200 p50 ${percentile(oursRtt, 50).toFixed(1)} ms, p99 ${percentile(oursRtt, 99).toFixed(1)} ms`,
  );
  console.log(
    `  sipp uas    : ${okBase} ok, ${stat(base.out, 'Failed call')} failed, ${rateBase.toFixed(0)} calls/s, ` +
      `INVITE→200 p50 ${percentile(baseRtt, 50).toFixed(1)} ms, p99 ${percentile(baseRtt, 99).toFixed(1)} ms`,
  );
  const limit = impliedRate(cpu, okOurs, 2);
  console.log(
    `  CPU per call: ${perCall(cpu, okOurs)} in the service process; sipp's uas ` +
      `${(uasMs / Math.max(1, okBase)).toFixed(2)} ms. At that cost this node sets up at most ` +
      `${limit.rate.toFixed(0)} calls/s on 2 cores (${limit.bound}; load average ${loadavg()[0]!.toFixed(1)})`,
  );
  // Both rates are capped at the offered one: the ratio says whether the node kept up, not how far
  // it could go. Part 3 measures the limit itself (the highest rate with no failure and p99 < 50 ms).
  console.log(
    `  ratio       : ${(rateOurs / rateBase).toFixed(2)} of sipp-to-sipp's rate at ${RATE} calls/s offered ` +
      `(targets: ≥ 100 calls/s, p99 < 20 ms, no failed call; the node's limit: part 3)`,
  );
  if (ours.code !== 0) console.log(ours.out.slice(-2000));
  for (const d of [oursDir, baseDir]) rmSync(d, { recursive: true, force: true });
}
