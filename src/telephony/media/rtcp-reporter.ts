// RTCP for one call: every few seconds builds the compound report (SR when we have sent media
// since the last one, else RR; a report block about the remote source; SDES CNAME), and reads the
// peer's compounds: its SR times for our LSR/DLSR, its report blocks about us for loss and RTT,
// and BYE.

import type { Clock, TimerHandle } from '../../shared/clock.js';
import {
  buildBye,
  buildReceiverReport,
  buildSdes,
  buildSenderReport,
  ntpFromMs,
  ntpMiddle,
  roundTripMs,
  type ReportBlock,
  type RtcpPacket,
} from './rtcp.js';
import type { ReceptionReportFields } from './rtp-stats.js';

export interface RtcpSource {
  ssrc: number;
  cname: string;
  /** Our sending side, or null for a receive-only stream. */
  sender: () => { packets: number; octets: number; rtpTimestampAt: (monotonicMs: number) => number } | null;
  /** The remote source and its statistics, or null before anything arrived. */
  remote: () => { ssrc: number; stats: { takeReport(): ReceptionReportFields } } | null;
}

export interface RemoteReport {
  /** What the peer says about our stream. */
  fractionLost: number;
  cumulativeLost: number;
  jitter: number;
  rttMs: number | null;
}

export interface RtcpReporterOptions {
  clock: Clock;
  /** Average report interval; RFC 3550's minimum of 5 s suits a two-party call. */
  intervalMs?: number;
  /** Source of randomness for the interval's [0.5, 1.5] spread. */
  random?: () => number;
  transmit: (compound: Buffer) => void;
  onReport?: (report: RemoteReport) => void;
  onBye?: (ssrc: number, reason?: string) => void;
}

export class RtcpReporter {
  private timer: TimerHandle | null = null;
  private lastSentPackets = 0;
  /** LSR of the peer's latest SR and the monotonic time it arrived. */
  private lastSr: { lsr: number; arrivedAt: number } | null = null;
  lastRemoteReport: RemoteReport | null = null;
  reportsSent = 0;
  reportsReceived = 0;

  constructor(
    private readonly source: RtcpSource,
    private readonly options: RtcpReporterOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.schedule();
  }

  stop(): void {
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** The compound a report timer would send now. */
  buildReport(): Buffer {
    const { clock } = this.options;
    const mono = clock.monotonic();
    const blocks: ReportBlock[] = [];
    const remote = this.source.remote();
    if (remote) {
      const r = remote.stats.takeReport();
      const dlsr = this.lastSr ? Math.round(((mono - this.lastSr.arrivedAt) / 1000) * 65536) : 0;
      blocks.push({ ssrc: remote.ssrc, ...r, lsr: this.lastSr?.lsr ?? 0, dlsr });
    }
    const sender = this.source.sender();
    let head: Buffer;
    if (sender && sender.packets > this.lastSentPackets) {
      this.lastSentPackets = sender.packets;
      const ntp = ntpFromMs(clock.now());
      head = buildSenderReport(
        this.source.ssrc,
        {
          ntpSeconds: ntp.seconds,
          ntpFraction: ntp.fraction,
          rtpTimestamp: sender.rtpTimestampAt(mono),
          packetCount: sender.packets,
          octetCount: sender.octets,
        },
        blocks,
      );
    } else {
      head = buildReceiverReport(this.source.ssrc, blocks);
    }
    return Buffer.concat([head, buildSdes(this.source.ssrc, this.source.cname)]);
  }

  /** The compound that ends the call: a last report, SDES and BYE (RFC 3550 6.6). */
  buildBye(reason?: string): Buffer {
    return Buffer.concat([this.buildReport(), buildBye([this.source.ssrc], reason)]);
  }

  /** Takes a parsed compound from the peer. */
  handle(packets: RtcpPacket[]): void {
    const { clock } = this.options;
    this.reportsReceived++;
    for (const p of packets) {
      if (p.type === 'sr') {
        this.lastSr = {
          lsr: ntpMiddle(p.sender.ntpSeconds, p.sender.ntpFraction),
          arrivedAt: clock.monotonic(),
        };
      }
      if (p.type === 'sr' || p.type === 'rr') {
        const mine = p.reports.find((b) => b.ssrc === this.source.ssrc);
        if (mine) {
          this.lastRemoteReport = {
            fractionLost: mine.fractionLost / 256,
            cumulativeLost: mine.cumulativeLost,
            jitter: mine.jitter,
            rttMs: roundTripMs(clock.now(), mine.lsr, mine.dlsr),
          };
          this.options.onReport?.(this.lastRemoteReport);
        }
      }
      if (p.type === 'bye') for (const s of p.ssrcs) this.options.onBye?.(s, p.reason);
    }
  }

  private schedule(): void {
    const interval = this.options.intervalMs ?? 5000;
    const spread = 0.5 + (this.options.random ?? Math.random)();
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      this.reportsSent++;
      this.options.transmit(this.buildReport());
      this.schedule();
    }, interval * spread);
  }
}
