// RFC 4733 telephone-events (DTMF in RTP) both ways. Receiving: a press arrives as a start packet,
// continuations with a growing duration and usually three end packets, all with the press's RTP
// timestamp, any of which may be lost, duplicated or reordered; DtmfReceiver turns that into one
// digit event per press, keyed by the timestamp. Sending: planDigit lays out the packets of one
// press in time, for RtpSender to put on the wire against its monotonic clock.

export const DTMF_EVENTS = '0123456789*#ABCD';

export interface TelephoneEvent {
  /** Event code: 0-9, 10 '*', 11 '#', 12-15 'A'-'D'. */
  event: number;
  end: boolean;
  /** Power level in -dBm0, 0..63. */
  volume: number;
  /** Duration so far, in RTP timestamp units. */
  duration: number;
}

export function digitOf(event: number): string | undefined {
  return event >= 0 && event < DTMF_EVENTS.length ? DTMF_EVENTS[event] : undefined;
}

export function eventOf(digit: string): number {
  const i = DTMF_EVENTS.indexOf(digit.toUpperCase());
  if (digit.length !== 1 || i < 0) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`);
  return i;
}

export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | null {
  if (payload.length < 4) return null;
  return {
    event: payload[0],
    end: (payload[1] & 0x80) !== 0,
    volume: payload[1] & 0x3f,
    duration: (payload[2] << 8) | payload[3],
  };
}

export function encodeTelephoneEvent(ev: TelephoneEvent): Buffer {
  const b = Buffer.alloc(4);
  b[0] = ev.event;
  b[1] = (ev.end ? 0x80 : 0) | (ev.volume & 0x3f);
  b.writeUInt16BE(Math.min(0xffff, ev.duration), 2);
  return b;
}

export interface DigitEvent {
  digit: string;
  /** RTP timestamp of the press, its identity. */
  timestamp: number;
  volume: number;
}

export interface DigitEnd extends DigitEvent {
  /** Final duration in milliseconds. */
  durationMs: number;
}

/** Presses remembered so late retransmissions of earlier presses stay quiet. */
const REMEMBERED = 16;

export class DtmfReceiver {
  private readonly seen: number[] = [];
  private readonly ended = new Set<number>();
  private current: { timestamp: number; event: number; duration: number; end: boolean } | null = null;

  constructor(
    readonly clockRate: number,
    private readonly onDigit: (d: DigitEvent) => void,
    private readonly onEnd?: (d: DigitEnd) => void,
  ) {}

  /** Feeds one telephone-event packet; returns the digit if this packet is a press's first sign. */
  handle(timestamp: number, payload: Uint8Array): DigitEvent | null {
    const ev = parseTelephoneEvent(payload);
    if (!ev) return null;
    const digit = digitOf(ev.event);
    if (digit === undefined) return null; // tones and other events are not digits
    timestamp >>>= 0;
    let fresh: DigitEvent | null = null;
    if (!this.seen.includes(timestamp)) {
      const cur = this.current;
      // A press longer than the 16-bit duration goes on under a new timestamp (RFC 4733 2.5.1.3).
      const continuation =
        cur !== null && !cur.end && cur.event === ev.event && cur.duration >= 0xffff - this.clockRate / 10;
      this.remember(timestamp);
      if (continuation) {
        this.ended.add(cur!.timestamp);
      } else {
        fresh = { digit, timestamp, volume: ev.volume };
        this.onDigit(fresh);
      }
      this.current = { timestamp, event: ev.event, duration: ev.duration, end: ev.end };
    } else if (this.current?.timestamp === timestamp) {
      this.current.duration = Math.max(this.current.duration, ev.duration);
      this.current.end ||= ev.end;
    }
    if (ev.end && !this.ended.has(timestamp)) {
      this.ended.add(timestamp);
      this.onEnd?.({
        digit,
        timestamp,
        volume: ev.volume,
        durationMs: (ev.duration * 1000) / this.clockRate,
      });
    }
    return fresh;
  }

  private remember(timestamp: number): void {
    this.seen.push(timestamp);
    if (this.seen.length > REMEMBERED) {
      const old = this.seen.shift()!;
      this.ended.delete(old);
    }
  }
}

export interface PlannedEventPacket {
  /** Offset from the press's start, in ms. */
  atMs: number;
  marker: boolean;
  payload: Buffer;
}

export interface DigitPlanOptions {
  clockRate: number;
  durationMs?: number;
  /** Spacing of the start and continuation packets (RFC 4733 suggests 50 ms). */
  intervalMs?: number;
  volume?: number;
  /** End packets, sent `endSpacingMs` apart, so one lost end packet costs nothing. */
  endCount?: number;
  endSpacingMs?: number;
}

/**
 * The packets of one key press: a start packet with the marker bit, continuations every interval
 * with the duration so far, then the end packets carrying the final duration. All share the
 * press's RTP timestamp, which the sender supplies.
 */
export function planDigit(digit: string, options: DigitPlanOptions): PlannedEventPacket[] {
  const event = eventOf(digit);
  const durationMs = options.durationMs ?? 100;
  const intervalMs = options.intervalMs ?? 50;
  const volume = options.volume ?? 10;
  const endCount = options.endCount ?? 3;
  const endSpacingMs = options.endSpacingMs ?? 20;
  const units = (ms: number) => Math.round((ms * options.clockRate) / 1000);
  const plan: PlannedEventPacket[] = [];
  for (let t = 0; t < durationMs; t += intervalMs) {
    const duration = units(Math.min(t + intervalMs, durationMs));
    plan.push({
      atMs: t,
      marker: t === 0,
      payload: encodeTelephoneEvent({ event, end: false, volume, duration }),
    });
  }
  for (let i = 0; i < endCount; i++) {
    plan.push({
      atMs: durationMs + i * endSpacingMs,
      marker: false,
      payload: encodeTelephoneEvent({ event, end: true, volume, duration: units(durationMs) }),
    });
  }
  return plan;
}
