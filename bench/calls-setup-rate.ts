// Part 1 of the calls benchmark (calls.bench.ts), set-up rate: sipp calls in at CALLS_BENCH_RATE
// calls/s for CALLS_BENCH_CALLS calls, each hung up after 1 s; prints the rate reached and
// INVITE-to-200 p50/p99 next to the same sipp client against sipp's own UAS, and their ratio.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { BenchNode } from './calls-node.js';
import { SETUP_SCENARIO } from './calls-scenarios.js';
import { freeUdpPort, responseTimes, runSipp, sippArgs, stat, type SippRun } from './calls-sipp.js';

const RATE = Number(process.env.CALLS_BENCH_RATE ?? 120);
const CALLS = Number(process.env.CALLS_BENCH_CALLS ?? 3000);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function setupRate(n: BenchNode): Promise<void> {
  const scenario = SETUP_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  // Warm the prompt cache and the statement caches with one call first.
  const warm = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, mkdtempSync(`${tmpdir()}/bc-`), 1, 1),
    mkdtempSync(`${tmpdir()}/bc-`),
  );
  if (warm.code !== 0) throw new Error(`warm-up call failed:\n${warm.out.slice(-3000)}`);

  const oursDir = mkdtempSync(`${tmpdir()}/bc-ours-`);
  // The service runs in this process and sipp in its own: our CPU time over the run, per call, is
  // the cost of a call whatever else the machine runs (the rate is not, on a shared machine).
  const cpuBefore = process.cpuUsage();
  const ours = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, oursDir, RATE, CALLS),
    oursDir,
  );
  const cpu = process.cpuUsage(cpuBefore);
  const oursRtt = responseTimes(oursDir);

  // Baseline: the same client against sipp's UAS (answers at once, no work) at the same rate.
  const basePort = await freeUdpPort();
  const uas = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(basePort), '-nostdin'], {
    stdio: 'ignore',
  });
  const baseDir = mkdtempSync(`${tmpdir()}/bc-base-`);
  let base: SippRun;
  try {
    base = await runSipp(sippArgs(`127.0.0.1:${basePort}`, scenario, baseDir, RATE, CALLS), baseDir);
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
  const cpuMs = (cpu.user + cpu.system) / 1000 / Math.max(1, okOurs);
  console.log(
    `  cpu         : ${cpuMs.toFixed(2)} ms per call in the service process (user ${(cpu.user / 1000).toFixed(0)} ms, ` +
      `system ${(cpu.system / 1000).toFixed(0)} ms): 2 cores set up at most ${((2 * 1000) / cpuMs).toFixed(0)} calls/s at that cost`,
  );
  console.log(
    `  ratio       : ${(rateOurs / rateBase).toFixed(2)} of sipp-to-sipp's rate ` +
      `(targets: ≥ 100 calls/s, p99 < 20 ms, no failed call)`,
  );
  if (ours.code !== 0) console.log(ours.out.slice(-2000));
  for (const d of [oursDir, baseDir]) rmSync(d, { recursive: true, force: true });
}
