// RTP fixed header codec (RFC 3550 section 5.1): the hot path of every call, so it reads into a
// reused RtpPacket and writes into a caller's buffer instead of allocating per packet.

export const RTP_VERSION = 2;
export const RTP_HEADER_MIN = 12;

/** Why a datagram is not a usable RTP packet. Numeric so the decode path allocates nothing. */
export const RtpStatus = {
  Ok: 0,
  TooShort: 1,
  BadVersion: 2,
  CsrcOverflow: 3,
  ExtensionOverflow: 4,
  BadPadding: 5,
} as const;
export type RtpStatus = (typeof RtpStatus)[keyof typeof RtpStatus];

const STATUS_TEXT = [
  'ok',
  'too short',
  'bad version',
  'CSRC list overflow',
  'extension overflow',
  'bad padding',
];

export class RtpParseError extends Error {
  constructor(readonly status: RtpStatus) {
    super(`malformed RTP packet: ${STATUS_TEXT[status]}`);
    this.name = 'RtpParseError';
  }
}

/** A decoded packet. Offsets point into `buffer`, which is not copied: copy the payload to keep it. */
export class RtpPacket {
  buffer: Buffer = Buffer.alloc(0);
  padding = false;
  extension = false;
  marker = false;
  payloadType = 0;
  sequenceNumber = 0;
  timestamp = 0;
  ssrc = 0;
  csrcCount = 0;
  /** Only the first csrcCount entries are meaningful. */
  readonly csrcs = new Uint32Array(15);
  /** Header extension (RFC 3550 5.3.1): profile-defined id and the byte range of its data. */
  extensionProfile = 0;
  extensionOffset = 0;
  extensionLength = 0;
  payloadOffset = 0;
  payloadLength = 0;
  paddingLength = 0;

  /** A view of the payload (no copy). */
  payload(): Buffer {
    return this.buffer.subarray(this.payloadOffset, this.payloadOffset + this.payloadLength);
  }

  extensionData(): Buffer {
    return this.buffer.subarray(this.extensionOffset, this.extensionOffset + this.extensionLength);
  }
}

/**
 * Decodes `buf` into `out` and returns RtpStatus.Ok, or the reason it is malformed. No allocation
 * happens, so a session can keep one RtpPacket for every datagram it receives.
 */
export function decodeRtp(buf: Buffer, out: RtpPacket): RtpStatus {
  const len = buf.length;
  if (len < RTP_HEADER_MIN) return RtpStatus.TooShort;
  const b0 = buf[0];
  if (b0 >> 6 !== RTP_VERSION) return RtpStatus.BadVersion;
  const b1 = buf[1];
  const cc = b0 & 0x0f;
  let offset = RTP_HEADER_MIN + cc * 4;
  if (offset > len) return RtpStatus.CsrcOverflow;
  out.buffer = buf;
  out.padding = (b0 & 0x20) !== 0;
  out.extension = (b0 & 0x10) !== 0;
  out.marker = (b1 & 0x80) !== 0;
  out.payloadType = b1 & 0x7f;
  out.sequenceNumber = buf.readUInt16BE(2);
  out.timestamp = buf.readUInt32BE(4);
  out.ssrc = buf.readUInt32BE(8);
  out.csrcCount = cc;
  for (let i = 0; i < cc; i++) out.csrcs[i] = buf.readUInt32BE(RTP_HEADER_MIN + i * 4);
  out.extensionProfile = 0;
  out.extensionOffset = 0;
  out.extensionLength = 0;
  if (out.extension) {
    if (offset + 4 > len) return RtpStatus.ExtensionOverflow;
    out.extensionProfile = buf.readUInt16BE(offset);
    const words = buf.readUInt16BE(offset + 2);
    out.extensionOffset = offset + 4;
    out.extensionLength = words * 4;
    offset += 4 + words * 4;
    if (offset > len) return RtpStatus.ExtensionOverflow;
  }
  let padding = 0;
  if (out.padding) {
    // The last octet counts the padding, itself included (RFC 3550 5.1), so zero is malformed.
    padding = buf[len - 1];
    if (padding === 0 || offset + padding > len) return RtpStatus.BadPadding;
  }
  out.paddingLength = padding;
  out.payloadOffset = offset;
  out.payloadLength = len - offset - padding;
  return RtpStatus.Ok;
}

/** Convenience for code off the hot path: a fresh packet, or RtpParseError. */
export function parseRtp(buf: Buffer): RtpPacket {
  const p = new RtpPacket();
  const status = decodeRtp(buf, p);
  if (status !== RtpStatus.Ok) throw new RtpParseError(status);
  return p;
}

/** The fields a sender chooses; version is always 2. */
export interface RtpHeaderFields {
  marker?: boolean;
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  csrcs?: ArrayLike<number>;
  /** Header extension data must be a whole number of 32-bit words. */
  extension?: { profile: number; data: Uint8Array };
  /** Padding octets to append (including the count octet); 0 for none. */
  padding?: number;
}

/** Bytes the header of `h` occupies (without payload and padding). */
export function rtpHeaderLength(h: RtpHeaderFields): number {
  const cc = h.csrcs ? h.csrcs.length : 0;
  return RTP_HEADER_MIN + cc * 4 + (h.extension ? 4 + h.extension.data.length : 0);
}

/**
 * Writes the header of `h` at `offset` of `buf` and returns the header length. The payload goes
 * right after it; a sender keeps one preallocated buffer and writes header and payload into it.
 */
export function writeRtpHeader(buf: Buffer, offset: number, h: RtpHeaderFields): number {
  const cc = h.csrcs ? h.csrcs.length : 0;
  if (cc > 15) throw new RangeError('at most 15 CSRCs');
  if (h.payloadType < 0 || h.payloadType > 127) throw new RangeError('payload type is 7 bits');
  const ext = h.extension;
  if (ext && ext.data.length % 4 !== 0) throw new RangeError('extension data must be whole words');
  const padding = h.padding ?? 0;
  buf[offset] = (RTP_VERSION << 6) | (padding > 0 ? 0x20 : 0) | (ext ? 0x10 : 0) | cc;
  buf[offset + 1] = (h.marker ? 0x80 : 0) | h.payloadType;
  buf.writeUInt16BE(h.sequenceNumber & 0xffff, offset + 2);
  buf.writeUInt32BE(h.timestamp >>> 0, offset + 4);
  buf.writeUInt32BE(h.ssrc >>> 0, offset + 8);
  let at = offset + RTP_HEADER_MIN;
  for (let i = 0; i < cc; i++, at += 4) buf.writeUInt32BE(h.csrcs![i] >>> 0, at);
  if (ext) {
    buf.writeUInt16BE(ext.profile & 0xffff, at);
    buf.writeUInt16BE(ext.data.length / 4, at + 2);
    buf.set(ext.data, at + 4);
    at += 4 + ext.data.length;
  }
  return at - offset;
}

/**
 * Writes a whole packet (header, payload, padding) into `out` (allocated if absent or too small)
 * and returns the number of bytes used; send `out.subarray(0, n)`.
 */
export function writeRtp(
  h: RtpHeaderFields,
  payload: Uint8Array,
  out?: Buffer,
): { buf: Buffer; length: number } {
  const padding = h.padding ?? 0;
  if (padding < 0 || padding > 255) throw new RangeError('padding is 0..255 octets');
  const total = rtpHeaderLength(h) + payload.length + padding;
  const buf = out && out.length >= total ? out : Buffer.allocUnsafe(total);
  const hl = writeRtpHeader(buf, 0, h);
  buf.set(payload, hl);
  if (padding > 0) {
    buf.fill(0, hl + payload.length, total - 1);
    buf[total - 1] = padding;
  }
  return { buf, length: total };
}

/** A fresh packet holding exactly the header and payload. */
export function serializeRtp(h: RtpHeaderFields, payload: Uint8Array): Buffer {
  const { buf, length } = writeRtp(h, payload);
  return buf.subarray(0, length);
}
