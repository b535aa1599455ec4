// RTCP (RFC 3550 section 6): sender and receiver reports, SDES with CNAME, and BYE, parsed from
// and built into compound packets; plus the NTP timestamp arithmetic that turns a report's
// LSR/DLSR into a round-trip time. Off the hot path (one compound every few seconds), so plain
// objects are fine here.

export const RTCP_SR = 200;
export const RTCP_RR = 201;
export const RTCP_SDES = 202;
export const RTCP_BYE = 203;
export const RTCP_APP = 204;
const SDES_CNAME = 1;

export interface ReportBlock {
  ssrc: number;
  /** Fraction lost since the previous report, in 1/256 units. */
  fractionLost: number;
  /** Signed 24-bit cumulative count. */
  cumulativeLost: number;
  extendedHighestSeq: number;
  /** Interarrival jitter in timestamp units. */
  jitter: number;
  /** Middle 32 bits of the NTP time of the last SR received from this source; 0 if none. */
  lsr: number;
  /** Delay since that SR, in 1/65536 s. */
  dlsr: number;
}

export interface SenderInfo {
  ntpSeconds: number;
  ntpFraction: number;
  rtpTimestamp: number;
  packetCount: number;
  octetCount: number;
}

export interface SdesChunk {
  ssrc: number;
  items: { type: number; value: string }[];
}

export type RtcpPacket =
  | { type: 'sr'; ssrc: number; sender: SenderInfo; reports: ReportBlock[] }
  | { type: 'rr'; ssrc: number; reports: ReportBlock[] }
  | { type: 'sdes'; chunks: SdesChunk[] }
  | { type: 'bye'; ssrcs: number[]; reason?: string }
  | { type: 'other'; packetType: number; count: number; body: Buffer };

/** With rtcp-mux (RFC 5761) RTP and RTCP share a port; RTCP's second octet is 192..223. */
export function isRtcp(buf: Buffer): boolean {
  return buf.length >= 8 && buf[0] >> 6 === 2 && buf[1] >= 192 && buf[1] <= 223;
}

// ---- NTP time (RFC 3550 4: seconds since 1900 and a 32-bit fraction) ----

const NTP_EPOCH_OFFSET = 2208988800;

export function ntpFromMs(wallMs: number): { seconds: number; fraction: number } {
  const secs = Math.floor(wallMs / 1000);
  const fraction = Math.floor(((wallMs - secs * 1000) / 1000) * 0x100000000);
  return { seconds: (secs + NTP_EPOCH_OFFSET) >>> 0, fraction: fraction >>> 0 };
}

/** The middle 32 bits of a 64-bit NTP time: the compact form LSR and RTT arithmetic use. */
export function ntpMiddle(seconds: number, fraction: number): number {
  return (((seconds & 0xffff) << 16) | (fraction >>> 16)) >>> 0;
}

/**
 * Round-trip time from a report block about our stream (RFC 3550 6.4.1): arrival time A minus
 * LSR minus DLSR, in milliseconds; null when the peer has not seen our SR yet or the result is
 * clearly negative (a peer with a broken clock or DLSR).
 */
export function roundTripMs(arrivalWallMs: number, lsr: number, dlsr: number): number | null {
  if (lsr === 0) return null;
  const { seconds, fraction } = ntpFromMs(arrivalWallMs);
  const rtt = (ntpMiddle(seconds, fraction) - lsr - dlsr) | 0;
  // Both ends round to 1/65536 s, so a loopback RTT can come out a hair below zero.
  if (rtt < 0) return rtt > -66 ? 0 : null;
  return (rtt * 1000) / 65536;
}

// ---- parsing ----

function readBlocks(buf: Buffer, at: number, count: number): ReportBlock[] {
  const blocks: ReportBlock[] = [];
  for (let i = 0; i < count; i++, at += 24) {
    blocks.push({
      ssrc: buf.readUInt32BE(at),
      fractionLost: buf[at + 4],
      cumulativeLost: buf.readIntBE(at + 5, 3),
      extendedHighestSeq: buf.readUInt32BE(at + 8),
      jitter: buf.readUInt32BE(at + 12),
      lsr: buf.readUInt32BE(at + 16),
      dlsr: buf.readUInt32BE(at + 20),
    });
  }
  return blocks;
}

function readSdes(body: Buffer, count: number): SdesChunk[] | null {
  const chunks: SdesChunk[] = [];
  let at = 0;
  for (let c = 0; c < count; c++) {
    if (at + 4 > body.length) return null;
    const chunk: SdesChunk = { ssrc: body.readUInt32BE(at), items: [] };
    at += 4;
    for (;;) {
      if (at >= body.length) return null;
      const type = body[at];
      if (type === 0) {
        // The item list ends with a null octet, then pads to the next 32-bit boundary.
        at = (at + 4) & ~3;
        break;
      }
      if (at + 2 > body.length) return null;
      const len = body[at + 1];
      if (at + 2 + len > body.length) return null;
      chunk.items.push({ type, value: body.toString('utf8', at + 2, at + 2 + len) });
      at += 2 + len;
    }
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * Parses a compound RTCP packet. Returns null when it fails RFC 3550 A.2's checks: version 2,
 * lengths that add up exactly, padding only on the last packet.
 */
export function parseRtcp(buf: Buffer): RtcpPacket[] | null {
  const packets: RtcpPacket[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 4 > buf.length) return null;
    const b0 = buf[at];
    if (b0 >> 6 !== 2) return null;
    const count = b0 & 0x1f;
    const pt = buf[at + 1];
    const total = (buf.readUInt16BE(at + 2) + 1) * 4;
    const end = at + total;
    if (end > buf.length) return null;
    let bodyEnd = end;
    if (b0 & 0x20) {
      if (end !== buf.length) return null;
      const pad = buf[end - 1];
      if (pad === 0 || pad > total - 4) return null;
      bodyEnd = end - pad;
    }
    const body = buf.subarray(at + 4, bodyEnd);
    switch (pt) {
      case RTCP_SR: {
        if (body.length < 24 + count * 24) return null;
        packets.push({
          type: 'sr',
          ssrc: body.readUInt32BE(0),
          sender: {
            ntpSeconds: body.readUInt32BE(4),
            ntpFraction: body.readUInt32BE(8),
            rtpTimestamp: body.readUInt32BE(12),
            packetCount: body.readUInt32BE(16),
            octetCount: body.readUInt32BE(20),
          },
          reports: readBlocks(body, 24, count),
        });
        break;
      }
      case RTCP_RR: {
        if (body.length < 4 + count * 24) return null;
        packets.push({ type: 'rr', ssrc: body.readUInt32BE(0), reports: readBlocks(body, 4, count) });
        break;
      }
      case RTCP_SDES: {
        const chunks = readSdes(body, count);
        if (!chunks) return null;
        packets.push({ type: 'sdes', chunks });
        break;
      }
      case RTCP_BYE: {
        if (body.length < count * 4) return null;
        const ssrcs: number[] = [];
        for (let i = 0; i < count; i++) ssrcs.push(body.readUInt32BE(i * 4));
        let reason: string | undefined;
        const r = count * 4;
        if (body.length > r) {
          const len = body[r];
          if (r + 1 + len > body.length) return null;
          reason = body.toString('utf8', r + 1, r + 1 + len);
        }
        packets.push({ type: 'bye', ssrcs, reason });
        break;
      }
      default:
        packets.push({ type: 'other', packetType: pt, count, body: Buffer.from(body) });
    }
    at = end;
  }
  return packets.length > 0 ? packets : null;
}

/** The CNAME of `ssrc` in a parsed compound, if any. */
export function cnameOf(packets: RtcpPacket[], ssrc: number): string | undefined {
  for (const p of packets) {
    if (p.type !== 'sdes') continue;
    for (const c of p.chunks) if (c.ssrc === ssrc) return c.items.find((i) => i.type === SDES_CNAME)?.value;
  }
  return undefined;
}

// ---- building ----

function header(buf: Buffer, count: number, pt: number): void {
  if (count > 31) throw new RangeError('at most 31 items per RTCP packet');
  buf[0] = 0x80 | count;
  buf[1] = pt;
  buf.writeUInt16BE(buf.length / 4 - 1, 2);
}

function writeBlocks(buf: Buffer, at: number, blocks: ReportBlock[]): void {
  for (const b of blocks) {
    buf.writeUInt32BE(b.ssrc >>> 0, at);
    buf[at + 4] = b.fractionLost & 0xff;
    buf.writeIntBE(Math.max(-0x800000, Math.min(0x7fffff, b.cumulativeLost)), at + 5, 3);
    buf.writeUInt32BE(b.extendedHighestSeq >>> 0, at + 8);
    buf.writeUInt32BE(b.jitter >>> 0, at + 12);
    buf.writeUInt32BE(b.lsr >>> 0, at + 16);
    buf.writeUInt32BE(b.dlsr >>> 0, at + 20);
    at += 24;
  }
}

export function buildSenderReport(ssrc: number, sender: SenderInfo, reports: ReportBlock[] = []): Buffer {
  const buf = Buffer.alloc(28 + 24 * reports.length);
  header(buf, reports.length, RTCP_SR);
  buf.writeUInt32BE(ssrc >>> 0, 4);
  buf.writeUInt32BE(sender.ntpSeconds >>> 0, 8);
  buf.writeUInt32BE(sender.ntpFraction >>> 0, 12);
  buf.writeUInt32BE(sender.rtpTimestamp >>> 0, 16);
  buf.writeUInt32BE(sender.packetCount >>> 0, 20);
  buf.writeUInt32BE(sender.octetCount >>> 0, 24);
  writeBlocks(buf, 28, reports);
  return buf;
}

export function buildReceiverReport(ssrc: number, reports: ReportBlock[] = []): Buffer {
  const buf = Buffer.alloc(8 + 24 * reports.length);
  header(buf, reports.length, RTCP_RR);
  buf.writeUInt32BE(ssrc >>> 0, 4);
  writeBlocks(buf, 8, reports);
  return buf;
}

export function buildSdes(ssrc: number, cname: string): Buffer {
  const value = Buffer.from(cname, 'utf8');
  if (value.length > 255) throw new RangeError('CNAME is at most 255 octets');
  // SSRC, CNAME item, then at least one null octet padding the chunk to a word boundary.
  const chunk = 4 + 2 + value.length;
  const padded = (chunk + 4) & ~3;
  const buf = Buffer.alloc(4 + padded);
  header(buf, 1, RTCP_SDES);
  buf.writeUInt32BE(ssrc >>> 0, 4);
  buf[8] = SDES_CNAME;
  buf[9] = value.length;
  value.copy(buf, 10);
  return buf;
}

export function buildBye(ssrcs: number[], reason?: string): Buffer {
  const text = reason ? Buffer.from(reason, 'utf8').subarray(0, 255) : null;
  const reasonBytes = text ? (1 + text.length + 3) & ~3 : 0;
  const buf = Buffer.alloc(4 + ssrcs.length * 4 + reasonBytes);
  header(buf, ssrcs.length, RTCP_BYE);
  ssrcs.forEach((s, i) => buf.writeUInt32BE(s >>> 0, 4 + i * 4));
  if (text) {
    const at = 4 + ssrcs.length * 4;
    buf[at] = text.length;
    text.copy(buf, at + 1);
  }
  return buf;
}
