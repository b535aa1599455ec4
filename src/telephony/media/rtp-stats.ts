// Per-source reception state of RFC 3550 appendix A: extended sequence numbers with probation and
// wrap cycles (A.1), loss counts and fraction lost for receiver reports (A.3), and interarrival
// jitter (A.8). One ReceptionStats per remote SSRC; the RTCP reporter reads it.

const SEQ_MOD = 0x10000;
const MAX_DROPOUT = 3000;
const MAX_MISORDER = 100;
const MIN_SEQUENTIAL = 2;

/** Signed distance a - b between two 16-bit sequence numbers, in -32768..32767. */
export function seqDiff(a: number, b: number): number {
  return (((a - b) & 0xffff) << 16) >> 16;
}

/** Signed distance a - b between two 32-bit RTP timestamps. */
export function tsDiff(a: number, b: number): number {
  return (a - b) | 0;
}

/** Turns 32-bit RTP timestamps into a monotonic-ish number that survives wrap-around. */
export class TimestampUnwrapper {
  private last = -1;
  private extended = 0;

  unwrap(ts: number): number {
    ts >>>= 0;
    if (this.last < 0) {
      this.last = ts;
      this.extended = ts;
      return ts;
    }
    this.extended += tsDiff(ts, this.last);
    this.last = ts;
    return this.extended;
  }
}

export interface ReceptionReportFields {
  fractionLost: number;
  cumulativeLost: number;
  extendedHighestSeq: number;
  jitter: number;
}

export class ReceptionStats {
  private maxSeq = 0;
  private cycles = 0;
  private baseSeq = 0;
  private badSeq = SEQ_MOD + 1;
  private probation = MIN_SEQUENTIAL;
  /** Packets counted as received (valid per A.1), duplicates included as the RFC does. */
  received = 0;
  private expectedPrior = 0;
  private receivedPrior = 0;
  private transit = 0;
  private haveTransit = false;
  /** Interarrival jitter in timestamp units, kept as a float to avoid A.8's integer shortcut drift. */
  private jitterUnits = 0;
  /** Packets rejected while on probation or judged out of window. */
  discarded = 0;
  /** Times the source jumped and the state was restarted (A.1's bad_seq rule). */
  restarts = 0;

  constructor(
    readonly clockRate: number,
    firstSeq?: number,
  ) {
    if (firstSeq !== undefined) this.begin(firstSeq);
  }

  private begun = false;

  private begin(seq: number): void {
    this.initSeq(seq);
    this.maxSeq = (seq - 1) & 0xffff;
    this.probation = MIN_SEQUENTIAL;
    this.begun = true;
  }

  private initSeq(seq: number): void {
    this.baseSeq = seq;
    this.maxSeq = seq;
    this.badSeq = SEQ_MOD + 1;
    this.cycles = 0;
    this.received = 0;
    this.receivedPrior = 0;
    this.expectedPrior = 0;
  }

  /**
   * Feeds one packet's sequence number (RFC 3550 A.1 update_seq). Returns false while the source is
   * on probation or when the packet is out of window; such packets should not be played.
   */
  updateSeq(seq: number): boolean {
    if (!this.begun) this.begin(seq);
    const udelta = (seq - this.maxSeq) & 0xffff;
    if (this.probation > 0) {
      if (seq === ((this.maxSeq + 1) & 0xffff)) {
        this.probation--;
        this.maxSeq = seq;
        if (this.probation === 0) {
          this.initSeq(seq);
          this.received++;
          return true;
        }
      } else {
        this.probation = MIN_SEQUENTIAL - 1;
        this.maxSeq = seq;
      }
      this.discarded++;
      return false;
    } else if (udelta < MAX_DROPOUT) {
      if (seq < this.maxSeq) this.cycles += SEQ_MOD;
      this.maxSeq = seq;
    } else if (udelta <= SEQ_MOD - MAX_MISORDER) {
      if (seq === this.badSeq) {
        // Two sequential packets after a big jump: the source restarted, so do we.
        this.initSeq(seq);
        this.restarts++;
      } else {
        this.badSeq = (seq + 1) & 0xffff;
        this.discarded++;
        return false;
      }
    }
    // Otherwise a duplicate or a reordered packet: counted, max untouched.
    this.received++;
    return true;
  }

  /** Whether probation is over (two sequential packets seen). */
  get valid(): boolean {
    return this.begun && this.probation === 0;
  }

  /** Highest sequence number with the cycle count in the upper 16 bits. */
  get extendedMax(): number {
    return this.cycles + this.maxSeq;
  }

  /** Extended number of `seq` relative to the highest seen, for ordering across wrap-around. */
  extend(seq: number): number {
    return this.extendedMax + seqDiff(seq, this.maxSeq);
  }

  get expected(): number {
    return this.extendedMax - this.baseSeq + 1;
  }

  /** Cumulative lost (A.3), clamped to the signed 24 bits of a report block. */
  get cumulativeLost(): number {
    const lost = this.expected - this.received;
    return Math.max(-0x800000, Math.min(0x7fffff, lost));
  }

  /**
   * Interarrival jitter (A.8). `arrivalMs` is the local monotonic time the packet arrived, converted
   * to timestamp units here; only differences matter so the origin is free.
   */
  updateJitter(rtpTimestamp: number, arrivalMs: number): void {
    const arrival = Math.round((arrivalMs * this.clockRate) / 1000);
    const transit = (arrival - rtpTimestamp) | 0;
    if (this.haveTransit) {
      const d = Math.abs((transit - this.transit) | 0);
      this.jitterUnits += (d - this.jitterUnits) / 16;
    }
    this.transit = transit;
    this.haveTransit = true;
  }

  /** Jitter in timestamp units, as an RTCP report carries it. */
  get jitter(): number {
    return Math.floor(this.jitterUnits);
  }

  get jitterMs(): number {
    return (this.jitterUnits * 1000) / this.clockRate;
  }

  /** Values for the next report block; advances the interval used for the fraction lost. */
  takeReport(): ReceptionReportFields {
    const expected = this.expected;
    const expectedInterval = expected - this.expectedPrior;
    const receivedInterval = this.received - this.receivedPrior;
    this.expectedPrior = expected;
    this.receivedPrior = this.received;
    const lostInterval = expectedInterval - receivedInterval;
    const fractionLost =
      expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.floor((lostInterval * 256) / expectedInterval);
    return {
      fractionLost: Math.min(255, fractionLost),
      cumulativeLost: this.cumulativeLost,
      extendedHighestSeq: this.extendedMax >>> 0,
      jitter: this.jitter,
    };
  }
}
