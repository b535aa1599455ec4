// Part 3 of the calls benchmark (calls.bench.ts), overload: first the node's set-up capacity,
// found in this run (sipp offers rising rates for CALLS_BENCH_STEP_SECONDS each, on a node with no
// admission limit; the capacity is the highest rate whose calls all succeeded with INVITE→200 p99
// under 50 ms), then MAX_CALLS_PER_SECOND set to it (the concurrency cap left derived) and sipp
// offering CALLS_BENCH_OVERLOAD× the capacity (default 3) for CALLS_BENCH_OVERLOAD_SECONDS
// (CALLS_BENCH_OVERLOAD_LIMITS=derived: no MAX_CALLS_PER_SECOND, the node's derived default;
// CALLS_BENCH_CAPACITY=N: no search, N taken as the capacity, to compare two builds at one load).
// Prints goodput (calls answered and completed a second, against the capacity), the admitted
// calls' INVITE→200 p50/p99, the time to the 503 of refused ones (p50, p99, max, how many over
// 10 ms), and how many calls failed. Targets: goodput ≥ 90% of capacity, p99 < 50 ms, every 503
// within 10 ms, no failed call.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchNode } from './calls-node.js';
import { OVERLOAD_SCENARIO, SETUP_SCENARIO } from './calls-scenarios.js';
import { percentile, runSipp, sippArgs, stat } from './calls-sipp.js';
import { warmUp } from './calls-setup-rate.js';

const STEP_SECONDS = Number(process.env.CALLS_BENCH_STEP_SECONDS ?? 5);
const START_RATE = Number(process.env.CALLS_BENCH_CAP_START ?? 60);
const FACTOR = Number(process.env.CALLS_BENCH_OVERLOAD ?? 3);
const OVERLOAD_SECONDS = Number(process.env.CALLS_BENCH_OVERLOAD_SECONDS ?? 10);
/** What a step must meet to count as within capacity. */
const P99_MS = 50;

/** sipp's -trace_rtt file, by response-time measure name (`date_ms;response_time_ms;rtd_name`). */
function timesByName(dir: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const file = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'));
  if (!file) return out;
  for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n').slice(1)) {
    const c = line.split(';');
    const v = Number(c[1]);
    if (c.length < 3 || !Number.isFinite(v)) continue;
    const name = c[2]!.trim();
    out.set(name, [...(out.get(name) ?? []), v]);
  }
  return out;
}

/**
 * Per call, from sipp's -trace_msg log: ms from the first INVITE sent to the 200 (admitted) or to
 * the 503 (refused). Each entry starts with a line of dashes and the time (`… 2026-11-26\t22:16:28.852297`).
 */
function answerTimes(dir: string): { admitted: number[]; refused: number[] } {
  const file = readdirSync(dir).find((f) => f.endsWith('_messages.log'));
  const sent = new Map<string, number>();
  const admitted: number[] = [];
  const refused: number[] = [];
  if (!file) return { admitted, refused };
  const text = readFileSync(path.join(dir, file), 'utf8');
  for (const entry of text.split(/^-{10,} /m).slice(1)) {
    const time = /(\d+):(\d+):(\d+\.\d+)/.exec(entry.slice(0, 80));
    const callId = /^Call-ID:\s*(\S+)/im.exec(entry)?.[1];
    if (!time || !callId) continue;
    const at = (Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3])) * 1000;
    const firstLine = /\n\s*\n?([^\n]*SIP\/2\.0[^\n]*)/.exec(entry)?.[1]?.trim() ?? '';
    if (/^INVITE /.test(firstLine)) {
      if (!sent.has(callId)) sent.set(callId, at);
    } else if (/^SIP\/2\.0 (200|503) /.test(firstLine) && /^CSeq:\s*1 INVITE/im.test(entry)) {
      const from = sent.get(callId);
      if (from === undefined) continue;
      (firstLine.startsWith('SIP/2.0 200') ? admitted : refused).push(at - from);
      sent.delete(callId); // a retransmitted final response is not a second answer
    }
  }
  return { admitted, refused };
}

async function quiet(n: BenchNode): Promise<void> {
  // Let every call of the step end and close before the next one starts.
  for (let i = 0; i < 600 && n.node.calls.size > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
}

interface Step {
  rate: number;
  ok: number;
  failed: number;
  p99: number;
  passed: boolean;
}

async function step(n: BenchNode, rate: number): Promise<Step> {
  const dir = mkdtempSync(`${tmpdir()}/bc-cap-`);
  const calls = Math.round(rate * STEP_SECONDS);
  const scenario = SETUP_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  const run = await runSipp(sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, dir, rate, calls), dir);
  const times = timesByName(dir).get('invite') ?? [];
  rmSync(dir, { recursive: true, force: true });
  const ok = stat(run.out, 'Successful call');
  const failed = stat(run.out, 'Failed call');
  const p99 = percentile(times, 99);
  await quiet(n);
  return { rate, ok, failed, p99, passed: failed === 0 && ok === calls && p99 < P99_MS };
}

/** The highest offered rate whose calls all succeeded with p99 under 50 ms. */
async function findCapacity(n: BenchNode): Promise<number> {
  let rate = START_RATE;
  let best = 0;
  const steps: Step[] = [];
  for (;;) {
    const s = await step(n, rate);
    steps.push(s);
    console.log(
      `  ${String(rate).padStart(5)} calls/s offered: ${s.ok} ok, ${s.failed} failed, ` +
        `INVITE→200 p99 ${s.p99.toFixed(1)} ms ${s.passed ? '' : '(over)'}`,
    );
    if (s.passed) {
      best = rate;
      if (steps.some((x) => !x.passed)) break;
      rate = Math.ceil(rate * 1.25);
    } else {
      if (best > 0) break;
      // Even the first rate was too much: come down until one holds.
      rate = Math.floor(rate / 1.25);
      if (rate < 5) return 5;
    }
  }
  return best;
}

export async function overload(n: BenchNode): Promise<void> {
  console.log(`calls: overload — capacity first (steps of ${STEP_SECONDS} s, no admission limit)`);
  // Run alone, the first step would pay espeak-ng's first synthesis and fail for it.
  await warmUp(n);
  // CALLS_BENCH_CAPACITY skips the search: two builds compared at the same offered load.
  const fixed = Number(process.env.CALLS_BENCH_CAPACITY ?? 0);
  const capacity = fixed > 0 ? fixed : await findCapacity(n);
  // CALLS_BENCH_OVERLOAD_LIMITS=derived leaves the rate derived too (the default a node runs
  // without MAX_CALLS_PER_SECOND), to see how the derivation holds against the measured capacity.
  const derived = process.env.CALLS_BENCH_OVERLOAD_LIMITS === 'derived';
  n.node.overload.setLimits({
    ...(derived ? {} : { maxCallsPerSecond: capacity }),
    concurrentCeiling: n.node.ports.available,
  });
  const offered = capacity * FACTOR;
  const calls = Math.round(offered * OVERLOAD_SECONDS);
  const dir = mkdtempSync(`${tmpdir()}/bc-over-`);
  const scenario = OVERLOAD_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  const args = [
    ...sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, dir, offered, calls),
    '-trace_err',
    '-trace_msg',
  ];
  const windowStart = process.hrtime.bigint() / 1000n;
  const run = await runSipp(args, dir);
  // Under --cpu-prof: the overload run's span on the profiles' clock (µs), for long-tasks.ts.
  if (process.execArgv.some((a) => a.startsWith('--cpu-prof'))) {
    console.log(`  profile window: ${windowStart}-${process.hrtime.bigint() / 1000n}`);
  }
  const { admitted, refused } = answerTimes(dir);
  const errors = readdirSync(dir).find((f) => f.endsWith('_errors.log'));
  const why = errors ? readFileSync(path.join(dir, errors), 'utf8').split('\n') : [];
  const failed = stat(run.out, 'Failed call');
  const state = n.node.overload.state;
  await quiet(n);
  // Calls were offered over calls/offered seconds; each admitted one completed 1 s later.
  const goodput = (admitted.length - failed) / (calls / offered);
  const slow = refused.filter((v) => v > 10).length;
  console.log(
    `  capacity    : ${capacity} calls/s; ` +
      (derived
        ? `both limits derived (rate ${state.rateLimit}/s, `
        : `MAX_CALLS_PER_SECOND=${capacity}, concurrency cap derived (`) +
      `${state.concurrentLimit} concurrent at the end; last second: loop delay p99 ` +
      `${state.loopDelayP99Ms.toFixed(1)} ms, media ticks ${state.ticks.late} late and ` +
      `${state.ticks.skipped} never sent of ${state.ticks.due}, set-up p99 ${state.setUpP99Ms.toFixed(1)} ms)`,
  );
  console.log(`  offered     : ${offered} calls/s (${FACTOR}×) for ${OVERLOAD_SECONDS} s, ${calls} calls`);
  console.log(
    `  admitted    : ${admitted.length}, goodput ${goodput.toFixed(0)} calls/s = ` +
      `${((100 * goodput) / capacity).toFixed(0)}% of capacity; INVITE→200 p50 ` +
      `${percentile(admitted, 50).toFixed(1)} ms, p99 ${percentile(admitted, 99).toFixed(1)} ms`,
  );
  console.log(
    `  refused 503 : ${refused.length}; answered in p50 ${percentile(refused, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(refused, 99).toFixed(1)} ms, max ${Math.max(0, ...refused).toFixed(1)} ms; ` +
      `${slow} over 10 ms`,
  );
  console.log(
    `  failed      : ${failed} (unanswered: ${calls - admitted.length - refused.length})` +
      `  (targets: goodput ≥ 90% of capacity, p99 < 50 ms, 503s within 10 ms, 0 failed)`,
  );
  if (failed > 0) {
    // What sipp said about the failed calls, each kind of complaint once with its count.
    const kinds = new Map<string, number>();
    for (const line of why.filter((l) => /^\S.*(Aborting|unexpected|timeout|Timeout)/i.test(l))) {
      const k = line
        .replace(/^[\d.: -]+/, '')
        .replace(/call-id '[^']*'/i, "call-id '…'")
        .slice(0, 160);
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    for (const [k, count] of kinds) console.log(`    ${count}× ${k}`);
  }
  rmSync(dir, { recursive: true, force: true });
}
