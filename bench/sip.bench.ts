// SIP benchmark, two parts.
// Signalling: sipp's UAC (INVITE, 200, ACK, BYE, 200; no media) against our stack answering with
// UasLeg, next to the same sipp UAC against sipp's own UAS, in the same run. Prints calls per second
// reached with no failed call, and our rate as a ratio of sipp-to-sipp.
// Media: sipp's UAC holds SIP_BENCH_MEDIA_CALLS concurrent G.711 calls to our stack, each answered
// with an RtpSession (one SharedPacer for all, as the node runs them) sending 20 ms PCMU frames and
// decoding what comes in; sipp's -rtp_echo sends every packet back, so each packet crosses the wire
// both ways. Prints packets lost or late (target under 1%), resident memory per concurrent call
// (target under 200 KiB), CPU and event-loop delay while they run.
//   npm run bench:sip   (SIP_BENCH_RATE=1000 calls/s, SIP_BENCH_CALLS=5000; raise the rate to find the
//                        ceiling. SIP_BENCH_MEDIA_CALLS=500, SIP_BENCH_MEDIA_HOLD_S=10,
//                        SIP_BENCH_MEDIA=0 skips the media part)
//
// The parts: sip-signalling.ts and sip-media.ts, driving sipp through sip-sipp.ts.
import {
  API_LOAD,
  CONNECT,
  MEDIA_CALLS,
  MEDIA_HOLD_S,
  MEDIA_PEERS,
  MEDIA_RATE,
  media,
  NICE,
  WORKERS,
} from './sip-media.js';
import { baseline, CALLS, line, ours, RATE } from './sip-signalling.js';

const MEDIA = process.env.SIP_BENCH_MEDIA !== '0';

async function main(): Promise<void> {
  console.log(`sipp UAC at ${RATE} calls/s, ${CALLS} calls, no media`);
  const base = await baseline();
  console.log(line('sipp UAC -> sipp UAS', base));
  const us = await ours();
  console.log(line('sipp UAC -> Switchboard', us));
  const ratio = us.ok / us.seconds / (base.ok / base.seconds);
  // Calls here last a few ms, so memory per concurrent call is the media part's figure, not this one.
  console.log(
    `ratio to sipp-to-sipp: ${(ratio * 100).toFixed(0)}%   RSS growth over the run: ${(us.rssGrowth / 1048576).toFixed(1)} MiB`,
  );
  let failed = us.failed > 0 || !(us.ok > 0);
  const cps = us.ok / us.seconds;
  const targets = [
    `signalling >= 300 calls/s: ${cps >= 300 ? 'met' : 'NOT met'} (${cps.toFixed(0)}, at ${RATE} offered)`,
    `>= 50% of sipp-to-sipp: ${ratio >= 0.5 ? 'met' : 'NOT met'} (${(ratio * 100).toFixed(0)}%)`,
  ];
  if (MEDIA) {
    console.log(
      `\nsipp UAC -> Switchboard, ${MEDIA_CALLS} concurrent G.711 calls (set up at ${MEDIA_RATE}/s), ` +
        `media both ways through the -rtp_echo of ${MEDIA_PEERS} sipp processes, measured over ${MEDIA_HOLD_S} s; ` +
        `${WORKERS > 0 ? `${WORKERS} media workers (${CONNECT ? 'connected sockets' : 'send-to, SIP_BENCH_CONNECT=0'})` : 'media on the main thread (MEDIA_WORKERS=0)'}` +
        `${API_LOAD ? ', autocannon on an API route of this process meanwhile' : ''}`,
    );
    const m = await media();
    const lost = Math.max(0, m.sent - m.received);
    // A stalled frame timer skips ticks (timestamps stay true, the frames are never sent): each
    // stream counts its own (holeFrames). Those frames were due, so they count as lost, and every
    // share below is of the frames due (sent + never sent).
    const unsent = m.neverSent;
    const due = m.sent + unsent;
    const pct = (x: number) => `${((x / Math.max(1, due)) * 100).toFixed(3)}%`;
    console.log(
      `calls held                   ${m.held} of ${m.calls} (sipp: ${m.sippOk} ok, ${m.sippFailed} failed)`,
    );
    console.log(
      `RTP frames                   ${due} due, ${unsent} never sent (${pct(unsent)}), ${m.sent} sent, ` +
        `${m.received} back: lost on the way ${lost} (${pct(lost)}), late ${m.late} (${pct(m.late)}); ` +
        `never sent + lost + late ${pct(unsent + lost + m.late)} (target < 1%)`,
    );
    console.log(
      `  of which the kernel dropped ${m.droppedAtEcho} at sipp's echo sockets (full receive buffers) ` +
        `and ${m.droppedAtUs} at our RTP sockets`,
    );
    console.log(
      `memory per concurrent call   ${(m.rssPerCall / 1024).toFixed(1)} KiB RSS (target < 200 KiB), ` +
        `${(m.heapPerCall / 1024).toFixed(1)} KiB JS heap, both after GC`,
    );
    console.log(
      `media workers' priority      ${
        m.workerPriority === null
          ? 'none (media on the main thread)'
          : `nice ${m.workerPriority.nice}${m.workerPriority.niceError ? ` (MEDIA_WORKER_NICE=${NICE} refused: ${m.workerPriority.niceError})` : ' (main thread 0)'}`
      }`,
    );
    console.log(
      `while held                   ${(m.cpu * 100).toFixed(0)}% of a core, event-loop delay p99 ` +
        `${m.delayP99.toFixed(1)} ms; ${m.skippedFrames} pacer ticks skipped after stalls`,
    );
    if (m.api) {
      console.log(
        `API meanwhile                ${m.api.requests} requests (${(m.api.requests / MEDIA_HOLD_S).toFixed(0)}/s), ` +
          `p99 ${m.api.p99Ms} ms, ${m.api.errors} errors`,
      );
    }
    failed ||= m.held < m.calls || m.sippFailed > 0;
    const bad = (unsent + lost + m.late) / Math.max(1, due);
    targets.push(
      `>= 500 concurrent G.711 calls with media: ${m.held >= 500 ? 'met' : 'NOT met'} (${m.held})`,
      `never sent, lost or late < 1%: ${bad < 0.01 ? 'met' : 'NOT met'} (${(bad * 100).toFixed(3)}%)`,
      `< 200 KiB per call: ${m.rssPerCall < 200 * 1024 ? 'met' : 'NOT met'} (${(m.rssPerCall / 1024).toFixed(1)} KiB)`,
    );
  }
  console.log(`\ntargets (figures from a shared 2-core machine):\n  ${targets.join('\n  ')}`);
  process.exitCode = failed ? 1 : 0;
}

void main();
