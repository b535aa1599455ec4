// An INVITE branch the failover timer gave up on (uac-leg.ts): its destination said nothing in
// time and the call moved on to the next one. It may still wake up, and what it says then must
// not reach the call: a provisional now allows the CANCEL that could not be sent before (RFC 3261
// 9.1), so no phone rings there for nothing; a 2xx made a dialog nobody wants, so it is ACKed
// (every retransmission of it, 13.2.2.4) and ended with BYE at once; a non-2xx final is ACKed by
// its own transaction. One per abandoned branch, for as long as its transaction matches responses.
import { dialogFromUac, isDialog, requestInDialog } from './dialog/dialog.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { cancelOf } from './next-attempt.js';
import type { SipStack } from './stack.js';
import type { Destination } from './transaction/types.js';
import { requestDestination } from './transport/routing.js';

export interface AbandonedBranchOptions {
  readonly stack: SipStack;
  /** The INVITE as sent on this branch, and where it went. */
  readonly request: SipRequest;
  readonly destination: Destination;
  /** A Via for a new request of ours (a new branch). */
  readonly via: () => string;
}

export class AbandonedBranch {
  private cancelled = false;
  private ack?: SipRequest;

  constructor(private readonly o: AbandonedBranchOptions) {}

  /** Whatever the branch's transaction passes on after it was abandoned. */
  onResponse(res: SipResponse): void {
    if (res.status < 200) return this.cancel();
    if (res.status >= 300) return;
    if (this.ack) return this.send(this.ack); // a 2xx retransmission: our ACK was lost
    const d = dialogFromUac(this.o.request, res);
    if (!isDialog(d)) return;
    this.ack = requestInDialog(d, {
      method: 'ACK',
      via: this.o.via(),
      cseq: this.o.request.cseq.seq,
    }).request;
    this.send(this.ack);
    const bye = requestInDialog(d, { method: 'BYE', via: this.o.via() }).request;
    this.o.stack.transactions.sendRequest(bye, this.hop(bye), { onResponse: () => undefined });
  }

  private cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.o.stack.transactions.sendRequest(cancelOf(this.o.request), this.o.destination, {
      onResponse: () => undefined,
    });
  }

  private send(req: SipRequest): void {
    this.o.stack.send(req, this.hop(req));
  }

  /** In-dialog requests follow the dialog's route set or remote target (RFC 3261 12.2.1.1). */
  private hop(req: SipRequest): Destination {
    return requestDestination(req) ?? this.o.destination;
  }
}
