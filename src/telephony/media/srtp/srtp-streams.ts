// The two SRTP contexts one RTP session runs: outbound on our master key, inbound on the peer's
// (SDES gives each side its own). Re-keying (a re-INVITE's new SDP) replaces only the side whose
// key or suite changed: our outbound context must never restart its rollover counter under the
// same key, since the same key with the same index would repeat a keystream.
import { SrtpContext } from './srtp-context.js';
import { SRTP_SUITES, type SrtpSuiteName } from './suites.js';

/** What SDES settled: the suite, our master key and salt, theirs (each key || salt). */
export interface SrtpParameters {
  readonly suite: SrtpSuiteName;
  readonly localKey: Buffer;
  readonly remoteKey: Buffer;
}

export class SrtpStreams {
  private constructor(
    private params: SrtpParameters,
    public outbound: SrtpContext,
    public inbound: SrtpContext,
  ) {}

  static create(params: SrtpParameters): SrtpStreams {
    return new SrtpStreams(
      params,
      context(params.suite, params.localKey),
      context(params.suite, params.remoteKey),
    );
  }

  /** Takes new parameters, keeping each context whose suite and key stay the same. */
  rekey(params: SrtpParameters): void {
    const suiteChanged = params.suite !== this.params.suite;
    if (suiteChanged || !params.localKey.equals(this.params.localKey)) {
      this.outbound = context(params.suite, params.localKey);
    }
    if (suiteChanged || !params.remoteKey.equals(this.params.remoteKey)) {
      this.inbound = context(params.suite, params.remoteKey);
    }
    this.params = params;
  }
}

function context(name: SrtpSuiteName, material: Buffer): SrtpContext {
  const suite = SRTP_SUITES[name];
  if (material.length !== suite.keyLength + suite.saltLength) {
    throw new Error(`${name} takes ${suite.keyLength + suite.saltLength} bytes of key and salt`);
  }
  return new SrtpContext(suite, material.subarray(0, suite.keyLength), material.subarray(suite.keyLength));
}
