// The parsed message: start line, header fields in wire order, body bytes, and typed views of the
// header fields every SIP element reads. Messages are values: build a new one to change one.
import type { CSeq, NameAddr, Via } from './headers.js';
import type { Uri } from './uri.js';

export interface SipHeader {
  /** Canonical spelling (compact forms expanded); see header-names.ts. */
  readonly name: string;
  /** Unfolded and trimmed, otherwise as written. */
  readonly value: string;
}

interface MessageBase {
  readonly version: 'SIP/2.0';
  readonly headers: readonly SipHeader[];
  readonly body: Uint8Array;
  /** Every via-parm, top first, comma-separated values flattened. */
  readonly via: readonly Via[];
  readonly from: NameAddr;
  readonly to: NameAddr;
  readonly callId: string;
  readonly cseq: CSeq;
  /** Contact addresses, flattened; empty when absent or when the value is "*". */
  readonly contact: readonly NameAddr[];
  /** True for "Contact: *" (REGISTER removing all bindings). */
  readonly contactWildcard: boolean;
  readonly maxForwards?: number;
  readonly contentLength?: number;
  readonly route: readonly NameAddr[];
  readonly recordRoute: readonly NameAddr[];
}

export interface SipRequest extends MessageBase {
  readonly kind: 'request';
  readonly method: string;
  readonly uri: Uri;
}

export interface SipResponse extends MessageBase {
  readonly kind: 'response';
  readonly status: number;
  readonly reason: string;
}

export type SipMessage = SipRequest | SipResponse;
