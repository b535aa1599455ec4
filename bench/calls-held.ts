// Part 2 of the calls benchmark (calls.bench.ts), held calls: sipp calls in at
// CALLS_BENCH_HOLD_RATE calls/s, CALLS_BENCH_HOLD_CALLS calls playing g711a.pcap then an RFC 4733
// digit; prints the peak of calls held at once, the media each way and its loss as our receivers
// count it, the calls that took the digit's branch, and the node's CPU and memory per call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { RtpSession } from '../src/telephony/media/rtp-session.js';
import type { BenchNode } from './calls-node.js';
import { HOLD_SCENARIO, PCAPS } from './calls-scenarios.js';
import { pcapPackets, runSipp, sippArgs, stat } from './calls-sipp.js';

const HOLD_RATE = Number(process.env.CALLS_BENCH_HOLD_RATE ?? 40);
const HOLD_CALLS = Number(process.env.CALLS_BENCH_HOLD_CALLS ?? 1000);

export async function heldCalls(n: BenchNode): Promise<void> {
  const scenario = HOLD_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  const dir = mkdtempSync(`${tmpdir()}/bc-hold-`);
  // Every live call's media session, kept after the call ends so its counters can be read.
  const sessions = new Map<string, RtpSession>();
  let peak = 0;
  let polling = false;
  const watch = setInterval(() => {
    peak = Math.max(peak, n.node.calls.size);
    if (polling) return;
    polling = true;
    void n.store.db
      .selectFrom('calls')
      .select('id')
      .where('status', '=', 'in_progress')
      .execute()
      .then((live) => {
        for (const { id } of live) {
          if (sessions.has(id)) continue;
          const call = n.node.calls.find(id);
          if (call) sessions.set(id, call.rtp);
        }
      })
      .finally(() => (polling = false));
  }, 100);
  const cpu0 = process.cpuUsage();
  const rss0 = process.memoryUsage().rss;
  let rssPeak = rss0;
  const mem = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  const run = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, dir, HOLD_RATE, HOLD_CALLS),
    dir,
  );
  clearInterval(watch);
  clearInterval(mem);
  const cpu = process.cpuUsage(cpu0);
  let received = 0;
  let late = 0;
  let sent = 0;
  for (const rtp of sessions.values()) {
    received += rtp.counters.rtpIn;
    late += rtp.receiver.jitterBuffer.stats.late;
    sent += rtp.counters.rtpOut;
  }
  // What sipp sent: every packet of both pcaps for every call whose media we saw.
  const perCall = pcapPackets(`${PCAPS}/g711a.pcap`) + pcapPackets(`${PCAPS}/dtmf_2833_1.pcap`);
  const expected = perCall * sessions.size;
  const lost = Math.max(0, expected - received) + late;
  // A call that missed the digit waits out the dtmf node's 30 s timeout before the workflow hangs up.
  const finished = await n.store.db
    .selectFrom('calls')
    .select(['hangup_reason', 'duration_seconds'])
    .where('direction', '=', 'inbound')
    .where('from_number', 'like', '+4930777%')
    .execute();
  const digits = finished.filter(
    (c) => c.hangup_reason === 'workflow_hangup' && (c.duration_seconds ?? 99) < 20,
  ).length;
  const seconds = run.seconds;
  console.log(
    `calls: held, ${HOLD_RATE} calls/s offered, ${HOLD_CALLS} calls of ~8 s (g711a.pcap in, our prompt out, an RFC 4733 digit)`,
  );
  console.log(
    `  sipp        : ${stat(run.out, 'Successful call')} ok, ${stat(run.out, 'Failed call')} failed in ${seconds.toFixed(0)} s`,
  );
  console.log(`  concurrent  : peak ${peak} calls held at once (target ≥ 300)`);
  console.log(
    `  media in    : ${received} of ${expected} RTP packets sipp sent over ${sessions.size} calls arrived, ` +
      `${late} too late to play: lost ${lost} = ${((100 * lost) / Math.max(1, expected)).toFixed(3)}% (target < 1%)`,
  );
  console.log(`  media out   : ${sent} RTP packets of our prompts sent`);
  console.log(`  workflow    : ${digits} calls heard the digit and were hung up by the workflow`);
  console.log(
    `  node        : CPU ${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2)} cores, ` +
      `RSS +${((rssPeak - rss0) / 1024 / Math.max(1, peak)).toFixed(0)} KiB per concurrent call at the peak`,
  );
  if (run.code !== 0) console.log(run.out.slice(-2000));
  rmSync(dir, { recursive: true, force: true });
}
