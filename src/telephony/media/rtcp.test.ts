import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildBye,
  buildReceiverReport,
  buildSdes,
  buildSenderReport,
  cnameOf,
  isRtcp,
  ntpFromMs,
  ntpMiddle,
  parseRtcp,
  roundTripMs,
  type ReportBlock,
} from './rtcp.js';

const block: ReportBlock = {
  ssrc: 0x11223344,
  fractionLost: 25,
  cumulativeLost: -3,
  extendedHighestSeq: 0x0001fffe,
  jitter: 42,
  lsr: 0xabcd1234,
  dlsr: 65536,
};

describe('RTCP', () => {
  it('round-trips a compound SR + SDES CNAME + BYE', () => {
    const sender = {
      ntpSeconds: 3900000000,
      ntpFraction: 0x80000000,
      rtpTimestamp: 160000,
      packetCount: 1000,
      octetCount: 160000,
    };
    const compound = Buffer.concat([
      buildSenderReport(0xcafe, sender, [block]),
      buildSdes(0xcafe, 'switchboard@127.0.0.1'),
      buildBye([0xcafe], 'hangup'),
    ]);
    expect(compound.length % 4).toBe(0);
    expect(isRtcp(compound)).toBe(true);
    const packets = parseRtcp(compound);
    expect(packets).toEqual([
      { type: 'sr', ssrc: 0xcafe, sender, reports: [block] },
      { type: 'sdes', chunks: [{ ssrc: 0xcafe, items: [{ type: 1, value: 'switchboard@127.0.0.1' }] }] },
      { type: 'bye', ssrcs: [0xcafe], reason: 'hangup' },
    ]);
    expect(cnameOf(packets!, 0xcafe)).toBe('switchboard@127.0.0.1');
  });

  it('round-trips a receiver report with no blocks and with several', () => {
    expect(parseRtcp(buildReceiverReport(7))).toEqual([{ type: 'rr', ssrc: 7, reports: [] }]);
    const two = [block, { ...block, ssrc: 9, cumulativeLost: 0x7fffff }];
    expect(parseRtcp(buildReceiverReport(7, two))).toEqual([{ type: 'rr', ssrc: 7, reports: two }]);
  });

  it('pads SDES chunks for every CNAME length', () => {
    for (let n = 1; n < 12; n++) {
      const cname = 'x'.repeat(n);
      const buf = buildSdes(1, cname);
      expect(buf.length % 4).toBe(0);
      expect(cnameOf(parseRtcp(buf)!, 1)).toBe(cname);
    }
  });

  it('rejects malformed compounds', () => {
    const rr = buildReceiverReport(7, [block]);
    expect(parseRtcp(rr.subarray(0, rr.length - 4))).toBeNull();
    const bad = Buffer.from(rr);
    bad[0] = 0x40 | 1;
    expect(parseRtcp(bad)).toBeNull();
    const lying = Buffer.from(rr);
    lying[0] = 0x80 | 2; // claims two blocks, carries one
    expect(parseRtcp(lying)).toBeNull();
    expect(isRtcp(Buffer.from('80000001000000000000000000000000', 'hex'))).toBe(false);
  });

  it('never throws on arbitrary bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
        const b = Buffer.from(bytes);
        if (b.length > 0) b[0] = (b[0] & 0x3f) | 0x80;
        parseRtcp(b);
      }),
    );
  });
});

describe('NTP and round-trip time', () => {
  it('converts wall time to NTP', () => {
    const t = ntpFromMs(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
    expect(t.seconds).toBe(Date.UTC(2026, 0, 1) / 1000 + 2208988800);
    expect(t.fraction).toBe(0x80000000);
    expect(ntpMiddle(0x12345678, 0x9abcdef0)).toBe(0x56789abc);
  });

  it('computes RTT from LSR and DLSR', () => {
    const sentSr = Date.UTC(2026, 0, 1, 12, 0, 0);
    const n = ntpFromMs(sentSr);
    const lsr = ntpMiddle(n.seconds, n.fraction);
    // The peer held our SR for 250 ms; the path is 30 ms each way.
    const dlsr = Math.round(0.25 * 65536);
    const rtt = roundTripMs(sentSr + 30 + 250 + 30, lsr, dlsr);
    expect(rtt).toBeCloseTo(60, 0);
    expect(roundTripMs(sentSr + 100, 0, 0)).toBeNull();
    expect(roundTripMs(sentSr, lsr, dlsr)).toBeNull();
  });
});
