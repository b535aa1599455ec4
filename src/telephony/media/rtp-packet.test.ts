import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeRtp,
  parseRtp,
  RtpPacket,
  RtpParseError,
  RtpStatus,
  serializeRtp,
  writeRtp,
} from './rtp-packet.js';

describe('RTP header codec', () => {
  it('reads a plain PCMU packet', () => {
    const bytes = Buffer.from('8000 1234 0000a0b1 deadbeef'.replace(/ /g, '') + 'ff'.repeat(160), 'hex');
    const p = parseRtp(bytes);
    expect(p.marker).toBe(false);
    expect(p.payloadType).toBe(0);
    expect(p.sequenceNumber).toBe(0x1234);
    expect(p.timestamp).toBe(0xa0b1);
    expect(p.ssrc).toBe(0xdeadbeef);
    expect(p.payloadLength).toBe(160);
    expect(p.payload().every((b) => b === 0xff)).toBe(true);
  });

  it('skips CSRCs, the header extension and padding', () => {
    const buf = serializeRtp(
      {
        marker: true,
        payloadType: 101,
        sequenceNumber: 65535,
        timestamp: 0xffffffff,
        ssrc: 7,
        csrcs: [1, 2],
        extension: { profile: 0xbede, data: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) },
        padding: 4,
      },
      Uint8Array.of(9, 8, 7),
    );
    expect(buf.length).toBe(12 + 8 + 4 + 8 + 3 + 4);
    const p = parseRtp(buf);
    expect(p.marker).toBe(true);
    expect(p.payloadType).toBe(101);
    expect(p.sequenceNumber).toBe(65535);
    expect(p.timestamp).toBe(0xffffffff);
    expect([...p.csrcs.subarray(0, p.csrcCount)]).toEqual([1, 2]);
    expect(p.extensionProfile).toBe(0xbede);
    expect([...p.extensionData()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...p.payload()]).toEqual([9, 8, 7]);
    expect(p.paddingLength).toBe(4);
  });

  it('rejects malformed packets with a reason', () => {
    const out = new RtpPacket();
    const good = serializeRtp({ payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3 }, Buffer.alloc(3));
    expect(decodeRtp(good.subarray(0, 11), out)).toBe(RtpStatus.TooShort);
    const v1 = Buffer.from(good);
    v1[0] = 0x40;
    expect(decodeRtp(v1, out)).toBe(RtpStatus.BadVersion);
    const cc = Buffer.from(good);
    cc[0] = 0x8f;
    expect(decodeRtp(cc, out)).toBe(RtpStatus.CsrcOverflow);
    const ext = Buffer.from(good);
    ext[0] = 0x90;
    expect(decodeRtp(ext, out)).toBe(RtpStatus.ExtensionOverflow);
    const extLen = Buffer.concat([Buffer.from(good.subarray(0, 12)), Buffer.from([0xbe, 0xde, 0, 9])]);
    extLen[0] = 0x90;
    expect(decodeRtp(extLen, out)).toBe(RtpStatus.ExtensionOverflow);
    const pad0 = Buffer.from(good);
    pad0[0] = 0xa0;
    pad0[pad0.length - 1] = 0;
    expect(decodeRtp(pad0, out)).toBe(RtpStatus.BadPadding);
    const padBig = Buffer.from(good);
    padBig[0] = 0xa0;
    padBig[padBig.length - 1] = 200;
    expect(decodeRtp(padBig, out)).toBe(RtpStatus.BadPadding);
    expect(() => parseRtp(v1)).toThrow(RtpParseError);
  });

  it('writes into a preallocated buffer', () => {
    const scratch = Buffer.alloc(1500);
    const { buf, length } = writeRtp(
      { payloadType: 8, sequenceNumber: 9, timestamp: 10, ssrc: 11 },
      Buffer.alloc(160, 0xd5),
      scratch,
    );
    expect(buf).toBe(scratch);
    expect(length).toBe(172);
  });

  it('round-trips any header (property)', () => {
    const header = fc.record({
      marker: fc.boolean(),
      payloadType: fc.integer({ min: 0, max: 127 }),
      sequenceNumber: fc.integer({ min: 0, max: 0xffff }),
      timestamp: fc.integer({ min: 0, max: 0xffffffff }),
      ssrc: fc.integer({ min: 0, max: 0xffffffff }),
      csrcs: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 15 }),
      padding: fc.integer({ min: 0, max: 255 }),
    });
    fc.assert(
      fc.property(header, fc.uint8Array({ maxLength: 200 }), (h, payload) => {
        const p = parseRtp(serializeRtp(h, payload));
        expect(p.marker).toBe(h.marker);
        expect(p.payloadType).toBe(h.payloadType);
        expect(p.sequenceNumber).toBe(h.sequenceNumber);
        expect(p.timestamp).toBe(h.timestamp);
        expect(p.ssrc).toBe(h.ssrc);
        expect([...p.csrcs.subarray(0, p.csrcCount)]).toEqual(h.csrcs);
        expect([...p.payload()]).toEqual([...payload]);
      }),
    );
  });

  it('never throws on arbitrary bytes (property)', () => {
    const out = new RtpPacket();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const status = decodeRtp(Buffer.from(bytes), out);
        if (status === RtpStatus.Ok) {
          expect(out.payloadOffset + out.payloadLength + out.paddingLength).toBe(bytes.length);
        }
      }),
    );
  });
});
