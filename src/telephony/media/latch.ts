// Symmetric RTP: where a session's media goes and which sources it takes media from. Until
// latched, media goes to the SDP address. The first valid RTP packet latches the session to its
// source ('any' mode, the default: a NATed phone's SDP carries its private address), or, in
// 'sdp-address' mode, the first one from the SDP's IP address (the port may differ). Once
// latched, packets from other sources are dropped and counted, and the session moves only after
// `relatchAfter` valid packets in a row from one new source, so a stray or injected packet cannot
// steal the stream (RTP bleed). A new SDP address (re-INVITE) drops the latch; then only a packet
// from exactly that address latches at once.
//
// Used by RtpSession on the main thread and by a media worker for the sessions it receives for.

export interface MediaAddress {
  address: string;
  port: number;
  /** RTCP port when not muxed; RTP port + 1 by default (RFC 3605's a=rtcp may say otherwise). */
  rtcpPort?: number;
}

export interface LatchOptions {
  latch?: 'any' | 'sdp-address';
  relatchAfter?: number;
  rtcpMux?: boolean;
}

export class Latch {
  remote: MediaAddress | null;
  latched: MediaAddress | null = null;
  /** Where RTCP goes once known (the latched host, or the source of the first RTCP packet). */
  rtcpRemote: MediaAddress | null = null;
  private candidate: { key: string; count: number } | null = null;
  /** The SDP address changed mid-call: latch at once only to exactly the new address. */
  private moved = false;

  constructor(
    private readonly options: LatchOptions,
    remote: MediaAddress | null,
  ) {
    this.remote = remote;
  }

  /** Where media goes now: the latched source, else the SDP address. */
  get destination(): MediaAddress | null {
    return this.latched ?? this.remote;
  }

  /** A new SDP address; true when it drops the latch. */
  setRemote(remote: MediaAddress): boolean {
    const old = this.remote;
    this.remote = remote;
    if (old && (old.address !== remote.address || old.port !== remote.port)) {
      this.latched = null;
      this.rtcpRemote = null;
      this.candidate = null;
      this.moved = true;
      return true;
    }
    return false;
  }

  /**
   * Applies the rule to a valid RTP packet's source: 'ok' (the latched source), 'latched' (it
   * latched now: the destination changed), or 'stray' (dropped).
   */
  accept(address: string, port: number): 'ok' | 'latched' | 'stray' {
    // Port 0 cannot be answered (a raw-socket sender, a spoofed packet): never latch to it.
    if (!sendablePort(port)) return 'stray';
    const latched = this.latched;
    if (latched && latched.address === address && latched.port === port) {
      this.candidate = null;
      return 'ok';
    }
    const remote = this.remote;
    // After a move only the new SDP address itself (port too) latches at once.
    const fromSdp = remote !== null && remote.address === address && (!this.moved || remote.port === port);
    const immediate = !latched && (fromSdp || (this.options.latch !== 'sdp-address' && !this.moved));
    if (!immediate) {
      const key = `${address}|${port}`;
      this.candidate =
        this.candidate?.key === key ? { key, count: this.candidate.count + 1 } : { key, count: 1 };
      if (this.candidate.count < (this.options.relatchAfter ?? 5)) return 'stray';
    }
    this.latchTo(address, port);
    return 'latched';
  }

  /** Latches to a source (accept's decision, or one a media worker made). */
  latchTo(address: string, port: number): void {
    this.candidate = null;
    this.latched = { address, port };
    // RTCP follows media: muxed on the same port, else the port above unless RTCP already came in.
    if (this.options.rtcpMux) this.rtcpRemote = this.latched;
    else if (!this.rtcpRemote || this.rtcpRemote.address !== address) {
      this.rtcpRemote = { address, port: port + 1 };
    }
  }

  /** RTCP from `address` may be taken: from the latched host only, once latched. */
  acceptsRtcpFrom(address: string): boolean {
    return !this.latched || this.latched.address === address;
  }

  /** The first RTCP packet names where RTCP goes, until media latches elsewhere. */
  rtcpArrived(address: string, port: number): void {
    if (!this.rtcpRemote) this.rtcpRemote = { address, port };
  }

  /** Where an RTCP compound goes now, if anywhere. */
  rtcpDestination(): MediaAddress | null {
    if (this.rtcpRemote) return this.rtcpRemote;
    if (!this.remote) return null;
    const port = this.options.rtcpMux ? this.remote.port : (this.remote.rtcpPort ?? this.remote.port + 1);
    return { address: this.remote.address, port };
  }
}

/** dgram's send throws (inside a timer: a crash) for a port outside 1..65535; SDP's 0 means none. */
export function sendablePort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port < 65536;
}
