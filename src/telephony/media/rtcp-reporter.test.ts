import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { parseRtcp, type RtcpPacket } from './rtcp.js';
import { RtcpReporter, type RemoteReport } from './rtcp-reporter.js';
import { ReceptionStats } from './rtp-stats.js';

/** Two reporters wired back to back through a 40 ms each-way "network" on one fake clock. */
function pair() {
  const clock = new FakeClock('2026-03-01T10:00:00Z');
  const statsAtB = new ReceptionStats(8000);
  const statsAtA = new ReceptionStats(8000);
  let sentByA = 0;
  const reportsAtA: RemoteReport[] = [];
  const byes: string[] = [];
  const wire: { from: string; packets: RtcpPacket[] }[] = [];
  const peers: { a?: RtcpReporter; b?: RtcpReporter } = {};
  const deliver = (to: () => RtcpReporter, from: string) => (buf: Buffer) => {
    const packets = parseRtcp(buf)!;
    wire.push({ from, packets });
    clock.setTimeout(() => to().handle(packets), 40);
  };
  const a = new RtcpReporter(
    {
      ssrc: 0xa,
      cname: 'a@test',
      sender: () =>
        sentByA ? { packets: sentByA, octets: sentByA * 160, rtpTimestampAt: (m) => m * 8 } : null,
      remote: () => ({ ssrc: 0xb, stats: statsAtA }),
    },
    { clock, random: () => 0.5, transmit: deliver(() => peers.b!, 'a'), onReport: (r) => reportsAtA.push(r) },
  );
  const b = new RtcpReporter(
    { ssrc: 0xb, cname: 'b@test', sender: () => null, remote: () => ({ ssrc: 0xa, stats: statsAtB }) },
    {
      clock,
      random: () => 0.5,
      transmit: deliver(() => peers.a!, 'b'),
      onBye: (_s, r) => byes.push(r ?? ''),
    },
  );
  peers.a = a;
  peers.b = b;
  return {
    clock,
    a,
    b,
    statsAtB,
    wire,
    reportsAtA,
    byes,
    send: (n: number) => {
      sentByA += n;
    },
  };
}

describe('RtcpReporter', () => {
  it('sends SR when it has sent media, RR otherwise, each with SDES CNAME, every 5 s', () => {
    const { clock, a, b, wire, send, statsAtB } = pair();
    for (let i = 0; i < 250; i++) statsAtB.updateSeq(i);
    send(250);
    a.start();
    b.start();
    clock.advance(5000);
    expect(wire.map((w) => [w.from, w.packets.map((p) => p.type).join('+')])).toEqual([
      ['a', 'sr+sdes'],
      ['b', 'rr+sdes'],
    ]);
    const rr = wire[1].packets[0];
    expect(rr.type === 'rr' && rr.reports[0]).toMatchObject({
      ssrc: 0xa,
      cumulativeLost: 0,
      extendedHighestSeq: 249,
    });
    clock.advance(5000);
    // A sent nothing new since its last SR: an RR this time.
    expect(wire[2]).toMatchObject({ from: 'a', packets: [{ type: 'rr' }, { type: 'sdes' }] });
  });

  it('measures the round trip from LSR and DLSR', () => {
    const { clock, a, b, send, reportsAtA } = pair();
    send(10);
    a.start();
    clock.advance(1000);
    b.start(); // B's first report goes 5 s later: it holds A's SR for about 1.96 s
    clock.advance(10_000);
    const rtt = reportsAtA.find((r) => r.rttMs !== null)?.rttMs;
    expect(rtt).toBeGreaterThan(79);
    expect(rtt).toBeLessThan(81);
  });

  it('ends with a compound that carries BYE, which the peer reports', () => {
    const { a, b, byes } = pair();
    const bye = parseRtcp(a.buildBye('done'))!;
    expect(bye.map((p) => p.type)).toEqual(['rr', 'sdes', 'bye']);
    b.handle(bye);
    expect(byes).toEqual(['done']);
  });
});
