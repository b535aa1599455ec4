// Calls benchmark: inbound calls from sipp through admission and dispatch into a
// speak + dtmf + hangup workflow, on the node the service runs (TelephonyNode + SessionHost on a
// SQLite file in WAL mode, prompts from espeak-ng through the prompt cache), media both ways.
//
// Part 1, set-up rate: sipp calls in at CALLS_BENCH_RATE calls/s (default 120) for
//   CALLS_BENCH_CALLS calls, each hung up by sipp after 1 s while our prompt plays; sipp echoes
//   our RTP back (-rtp_echo, CALLS_BENCH_ECHO=0 turns it off), so media flows both ways. Prints the
//   rate reached with no failed call and INVITE-to-200 p50/p99 (sipp's response-time trace), next
//   to the same sipp client against sipp's own UAS in the same run (the baseline, which does no
//   work at all: the ratio shows what admission, dispatch, the store and the media set-up cost),
//   and the service's CPU ms per call (main thread, media workers, other threads) beside the
//   UAS's: the figure a shared machine does not blur. Under `node --cpu-prof` it also prints the
//   run's window for cpu-profile-summary.ts (where that CPU goes).
// Part 2, held calls: sipp calls in at CALLS_BENCH_HOLD_RATE calls/s (default 40) and each call
//   plays Debian's g711a.pcap (236 PCMA packets, about 7.5 s) then an RFC 4733 "1"; the workflow
//   hears the digit and hangs up (our BYE). Prints the peak of concurrent calls held, the packets
//   each way and the loss of sipp's audio as our receivers count it (RFC 3550 expected vs
//   received, plus packets dropped as late), and how many calls took the digit's branch.
//
// Part 3, overload (calls-overload.ts): the node's set-up capacity found in the same run, then
//   MAX_CALLS_PER_SECOND at it and 3× that offered: goodput, admitted calls' INVITE→200 p99, the
//   time to each refusal's 503, failed calls.
//
//   npm run bench:calls   (CALLS_BENCH_CALLS=3000, CALLS_BENCH_HOLD_CALLS=1000, CALLS_BENCH_PART=1|2|3,
//                          CALLS_BENCH_CAPACITY=N for part 3 at a given capacity,
//                          CALLS_BENCH_RECORD=1 to record every call)
// Targets on a 2-core machine: ≥ 100 calls/s set up, ≥ 300 concurrent calls held with < 1% loss,
// INVITE-to-200 p99 < 20 ms.
//
// The parts: calls-setup-rate.ts and calls-held.ts, against the node of calls-node.ts, driving
// sipp through calls-sipp.ts with the scenarios of calls-scenarios.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { heldCalls } from './calls-held.js';
import { startNode } from './calls-node.js';
import { overload } from './calls-overload.js';
import { setupRate } from './calls-setup-rate.js';

const PART = process.env.CALLS_BENCH_PART;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(`${tmpdir()}/bench-calls-`);
  const n = await startNode(dataDir);
  try {
    if (PART === undefined || PART === '1') await setupRate(n);
    if (PART === undefined || PART === '2') await heldCalls(n);
    if (PART === undefined || PART === '3') await overload(n);
  } finally {
    await n.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
