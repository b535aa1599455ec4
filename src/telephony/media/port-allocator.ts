// Hands out RTP ports from the configured range (RTP_PORT_MIN..RTP_PORT_MAX): even numbers, with
// the odd one above kept for RTCP (RFC 3550 11), and freed ports going to the back of the line so
// a late packet of an old call does not land in the next one at once.

export class RtpPortAllocator {
  private readonly free: number[] = [];
  private readonly taken = new Set<number>();

  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    const first = min % 2 === 0 ? min : min + 1;
    for (let p = first; p + 1 <= max; p += 2) this.free.push(p);
    if (this.free.length === 0) throw new RangeError(`no even RTP port with room for RTCP in ${min}..${max}`);
  }

  get available(): number {
    return this.free.length;
  }

  get inUse(): number {
    return this.taken.size;
  }

  /** The next free even port, or null when the range is exhausted. */
  allocate(): number | null {
    const port = this.free.shift();
    if (port === undefined) return null;
    this.taken.add(port);
    return port;
  }

  release(port: number): void {
    if (!this.taken.delete(port)) return;
    this.free.push(port);
  }
}
