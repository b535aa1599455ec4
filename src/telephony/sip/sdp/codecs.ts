// The audio formats the stack speaks (PCMU, PCMA, Opus, RFC 4733 telephone-event) and how to
// recognise them in an SDP m-line: by rtpmap name and clock rate, or by static payload type.
import type { MediaDescription } from 'sdp-transform';

export type CodecName = 'PCMU' | 'PCMA' | 'opus';
export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface Codec {
  readonly name: CodecName | 'telephone-event';
  /** The payload type on the wire: static, or the offerer's number for dynamic formats. */
  readonly pt: number;
  readonly clockRate: number;
  readonly channels: number;
  readonly fmtp?: string;
}

/** Payload types we pick when we offer; an answer always reuses the offerer's numbers instead. */
export interface DynamicPayloadTypes {
  readonly opus: number;
  readonly te8000: number;
  readonly te48000: number;
}

export const DEFAULT_DYNAMIC_PTS: DynamicPayloadTypes = { opus: 111, te8000: 101, te48000: 110 };

/** fmtp we send for formats that take parameters (RFC 7587 for Opus, RFC 4733 event range). */
export const OPUS_FMTP = 'minptime=10;useinbandfec=1';
export const TELEPHONE_EVENT_FMTP = '0-16';

const STATIC: Record<number, { name: CodecName; clockRate: number }> = {
  0: { name: 'PCMU', clockRate: 8000 },
  8: { name: 'PCMA', clockRate: 8000 },
};

export function ourCodec(
  name: CodecName | 'telephone-event',
  pts: DynamicPayloadTypes,
  clockRate = 8000,
): Codec {
  switch (name) {
    case 'PCMU':
      return { name, pt: 0, clockRate: 8000, channels: 1 };
    case 'PCMA':
      return { name, pt: 8, clockRate: 8000, channels: 1 };
    case 'opus':
      return { name, pt: pts.opus, clockRate: 48000, channels: 2, fmtp: OPUS_FMTP };
    default:
      return {
        name,
        pt: clockRate === 48000 ? pts.te48000 : pts.te8000,
        clockRate,
        channels: 1,
        fmtp: TELEPHONE_EVENT_FMTP,
      };
  }
}

export function payloadList(m: MediaDescription): number[] {
  return String(m.payloads ?? '')
    .trim()
    .split(/\s+/)
    .filter((p) => /^\d{1,3}$/.test(p))
    .map(Number)
    .filter((p) => p <= 127);
}

/** The formats of an m-line we understand, in the m-line's order, with the offerer's numbers. */
export function knownFormats(m: MediaDescription): Codec[] {
  const out: Codec[] = [];
  for (const pt of payloadList(m)) {
    const map = m.rtp.find((r) => r.payload === pt);
    const fmtp = m.fmtp.find((f) => f.payload === pt)?.config;
    const withFmtp = (c: Codec): Codec => (fmtp !== undefined ? { ...c, fmtp } : c);
    if (!map) {
      // Static types may come without rtpmap (RFC 3551); a dynamic one without rtpmap means nothing.
      const s = STATIC[pt];
      if (s) out.push(withFmtp({ name: s.name, pt, clockRate: s.clockRate, channels: 1 }));
      continue;
    }
    const name = map.codec.toLowerCase();
    const channels = map.encoding === undefined ? 1 : Number(map.encoding);
    if (name === 'pcmu' && map.rate === 8000 && channels === 1)
      out.push(withFmtp({ name: 'PCMU', pt, clockRate: 8000, channels }));
    else if (name === 'pcma' && map.rate === 8000 && channels === 1)
      out.push(withFmtp({ name: 'PCMA', pt, clockRate: 8000, channels }));
    // RFC 7587: Opus is always written opus/48000/2, whatever is really sent.
    else if (name === 'opus' && map.rate === 48000 && channels === 2)
      out.push(withFmtp({ name: 'opus', pt, clockRate: 48000, channels }));
    else if (name === 'telephone-event' && (map.rate === 8000 || map.rate === 48000)) {
      out.push(withFmtp({ name: 'telephone-event', pt, clockRate: map.rate, channels: 1 }));
    }
  }
  return out;
}

/** What the other side may do, seen from our side: their sendonly is our recvonly. */
export function reverse(d: Direction): Direction {
  return d === 'sendonly' ? 'recvonly' : d === 'recvonly' ? 'sendonly' : d;
}

/** Both sides must agree to a flow: we send only if we want to and they will receive. */
export function intersect(a: Direction, b: Direction): Direction {
  const send = (a === 'sendrecv' || a === 'sendonly') && (b === 'sendrecv' || b === 'sendonly');
  const recv = (a === 'sendrecv' || a === 'recvonly') && (b === 'sendrecv' || b === 'recvonly');
  return send && recv ? 'sendrecv' : send ? 'sendonly' : recv ? 'recvonly' : 'inactive';
}
