// Server transactions (RFC 3261 17.2): INVITE with timers G, H, I and the RFC 6026 Accepted
// state (timer L), non-INVITE with timer J. They absorb request retransmissions by resending the
// last response, so the TU sees each request once.
import type { SipRequest, SipResponse } from '../message/types.js';
import { serverKey } from './keys.js';
import type { Destination, TransactionContext } from './types.js';
import { Transaction } from './types.js';

export interface ServerHandlers {
  /** Timer H fired: a non-2xx final response was never acknowledged. */
  readonly onTimeout?: (tx: ServerTransaction) => void;
  readonly onTransportError?: (tx: ServerTransaction, error?: Error) => void;
}

export abstract class ServerTransaction extends Transaction {
  readonly key: string;
  protected lastResponse?: SipResponse;
  handlers: ServerHandlers = {};

  constructor(
    ctx: TransactionContext,
    destination: Destination,
    readonly request: SipRequest,
  ) {
    super(ctx, destination);
    this.key = serverKey(request);
  }

  /** The TU answers through the transaction, which keeps the response for retransmissions. */
  abstract respond(res: SipResponse): void;
  /** A retransmitted request, or (INVITE) the ACK for a non-2xx response. */
  abstract receive(req: SipRequest): void;

  protected transportFailedLater(error: Error): void {
    this.terminate();
    this.handlers.onTransportError?.(this, error);
  }

  protected sendResponse(res: SipResponse): boolean {
    this.lastResponse = res;
    if (this.transmit(res)) return true;
    this.terminate();
    this.handlers.onTransportError?.(this);
    return false;
  }
}

export class ServerInviteTransaction extends ServerTransaction {
  protected stateName = 'Proceeding';

  respond(res: SipResponse): void {
    if (this.stateName !== 'Proceeding') return;
    if (!this.sendResponse(res)) return;
    if (res.status < 200) return;
    if (res.status < 300) {
      // RFC 6026: 2xx retransmission is the TU's job; we absorb retransmitted INVITEs meanwhile.
      this.stateName = 'Accepted';
      this.startTimer('L', 64 * this.ctx.timers.T1, () => this.terminate());
      return;
    }
    this.stateName = 'Completed';
    if (!this.destination.reliable) this.retransmitAfter(this.ctx.timers.T1);
    this.startTimer('H', 64 * this.ctx.timers.T1, () => {
      this.terminate();
      this.handlers.onTimeout?.(this);
    });
  }

  private retransmitAfter(ms: number): void {
    this.startTimer('G', ms, () => {
      if (this.lastResponse && !this.sendResponse(this.lastResponse)) return;
      this.retransmitAfter(Math.min(ms * 2, this.ctx.timers.T2));
    });
  }

  receive(req: SipRequest): void {
    if (req.method === 'ACK') {
      if (this.stateName !== 'Completed') return;
      this.stateName = 'Confirmed';
      this.stopTimer('G');
      this.stopTimer('H');
      this.afterUnlessReliable('I', this.ctx.timers.T4, () => this.terminate());
      return;
    }
    if ((this.stateName === 'Proceeding' || this.stateName === 'Completed') && this.lastResponse) {
      this.sendResponse(this.lastResponse);
    }
  }
}

export class ServerNonInviteTransaction extends ServerTransaction {
  protected stateName = 'Trying';

  respond(res: SipResponse): void {
    if (this.stateName !== 'Trying' && this.stateName !== 'Proceeding') return;
    if (!this.sendResponse(res)) return;
    if (res.status < 200) {
      this.stateName = 'Proceeding';
      return;
    }
    this.stateName = 'Completed';
    this.afterUnlessReliable('J', 64 * this.ctx.timers.T1, () => this.terminate());
  }

  receive(_req: SipRequest): void {
    // In Trying there is nothing to resend yet; the retransmission is simply absorbed.
    if ((this.stateName === 'Proceeding' || this.stateName === 'Completed') && this.lastResponse) {
      this.sendResponse(this.lastResponse);
    }
  }
}
