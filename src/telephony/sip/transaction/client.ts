// Client transactions (RFC 3261 17.1): INVITE with timers A, B, D and the RFC 6026 Accepted
// state (timer M), non-INVITE with timers E, F and K. Retransmissions only on unreliable transports.
import { createRequest } from '../message/build.js';
import type { HeaderInit } from '../message/build.js';
import { formatVia } from '../message/headers.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import { clientKey } from './keys.js';
import type { Destination, TransactionContext } from './types.js';
import { Transaction } from './types.js';

export interface ClientHandlers {
  /** Every response the TU must see: provisional, final, and (INVITE) 2xx retransmissions. */
  readonly onResponse: (res: SipResponse, tx: ClientTransaction) => void;
  /** Timer B or F fired: no final response in time; the TU acts as if it got a 408. */
  readonly onTimeout?: (tx: ClientTransaction) => void;
  /** The request could not be sent (at once, or when its connection failed to open). */
  readonly onTransportError?: (tx: ClientTransaction, error?: Error) => void;
}

/** The ACK for a non-2xx final response, built by the transaction itself (17.1.1.3). */
export function ackForNon2xx(req: SipRequest, res: SipResponse): SipRequest {
  const headers: HeaderInit[] = [
    { name: 'Via', value: formatVia(req.via[0]) },
    { name: 'Max-Forwards', value: '70' },
  ];
  for (const h of req.headers)
    if (h.name === 'Route' || h.name === 'From' || h.name === 'Call-ID') headers.push(h);
  const to = res.headers.find((h) => h.name === 'To');
  if (to) headers.push(to);
  headers.push({ name: 'CSeq', value: `${req.cseq.seq} ACK` });
  return createRequest({ method: 'ACK', uri: req.uri, headers });
}

export abstract class ClientTransaction extends Transaction {
  readonly key: string;
  protected lastFinal?: SipResponse;
  /** Given up on by its owner (abandon()): its timeout and transport errors are no one's business. */
  protected abandoned = false;

  constructor(
    ctx: TransactionContext,
    destination: Destination,
    readonly request: SipRequest,
    protected readonly handlers: ClientHandlers,
  ) {
    super(ctx, destination);
    const branch = request.via[0].branch;
    if (branch === undefined) throw new Error('a client transaction needs a Via branch');
    this.key = clientKey(branch, request.method);
  }

  abstract start(): void;
  abstract receive(res: SipResponse): void;

  protected failTransport(error?: Error): void {
    this.terminate();
    if (!this.abandoned) this.handlers.onTransportError?.(this, error);
  }

  /** Before a final response the TU hears of it; after one (an ACK lost) the transaction just ends. */
  protected transportFailedLater(error: Error): void {
    const s = this.stateName;
    if (s === 'Calling' || s === 'Trying' || s === 'Proceeding') this.failTransport(error);
    else this.terminate();
  }

  protected timeout(): void {
    this.terminate();
    if (!this.abandoned) this.handlers.onTimeout?.(this);
  }
}

export class ClientInviteTransaction extends ClientTransaction {
  protected stateName = 'Calling';

  start(): void {
    if (!this.transmit(this.request)) return this.failTransport();
    if (!this.destination.reliable) this.retransmitAfter(this.ctx.timers.T1);
    this.startTimer('B', 64 * this.ctx.timers.T1, () => this.timeout());
  }

  private retransmitAfter(ms: number): void {
    this.startTimer('A', ms, () => {
      if (!this.transmit(this.request)) return this.failTransport();
      this.retransmitAfter(ms * 2);
    });
  }

  /**
   * The owner gives up on a request that drew no response at all and tries elsewhere (a faster
   * RFC 3263 failover than timer B): the retransmissions stop and the timeout or a transport error
   * is never reported, but a late response still reaches the owner until timer B would have
   * fired, so that it can still CANCEL the branch or ACK and BYE a 2xx. No CANCEL can be sent
   * now: there is no provisional response (RFC 3261 9.1). Only in Calling; false otherwise.
   */
  abandon(): boolean {
    if (this.stateName !== 'Calling' || this.terminated) return false;
    this.abandoned = true;
    this.stopTimer('A');
    return true;
  }

  receive(res: SipResponse): void {
    const s = this.stateName;
    if (res.status < 200) {
      if (s !== 'Calling' && s !== 'Proceeding') return;
      this.stateName = 'Proceeding';
      this.stopTimer('A');
      this.stopTimer('B');
      this.handlers.onResponse(res, this);
    } else if (res.status < 300) {
      if (s === 'Calling' || s === 'Proceeding') {
        // RFC 6026: stay around to pass 2xx retransmissions to the TU, which ACKs each one.
        this.stateName = 'Accepted';
        this.stopTimer('A');
        this.stopTimer('B');
        this.startTimer('M', 64 * this.ctx.timers.T1, () => this.terminate());
        this.handlers.onResponse(res, this);
      } else if (s === 'Accepted') this.handlers.onResponse(res, this);
    } else if (s === 'Calling' || s === 'Proceeding') {
      this.stateName = 'Completed';
      this.stopTimer('A');
      this.stopTimer('B');
      this.lastFinal = res;
      if (!this.transmit(ackForNon2xx(this.request, res))) return this.failTransport();
      this.handlers.onResponse(res, this);
      this.afterUnlessReliable('D', 32_000, () => this.terminate());
    } else if (s === 'Completed') {
      // A retransmitted final response means our ACK was lost: send it again, tell no one.
      this.transmit(ackForNon2xx(this.request, res));
    }
  }
}

export class ClientNonInviteTransaction extends ClientTransaction {
  protected stateName = 'Trying';

  start(): void {
    if (!this.transmit(this.request)) return this.failTransport();
    if (!this.destination.reliable) this.retransmitAfter(this.ctx.timers.T1);
    this.startTimer('F', 64 * this.ctx.timers.T1, () => this.timeout());
  }

  private retransmitAfter(ms: number): void {
    this.startTimer('E', ms, () => {
      if (!this.transmit(this.request)) return this.failTransport();
      // In Proceeding the interval goes straight to T2 (17.1.2.2).
      const next =
        this.stateName === 'Proceeding' ? this.ctx.timers.T2 : Math.min(ms * 2, this.ctx.timers.T2);
      this.retransmitAfter(next);
    });
  }

  receive(res: SipResponse): void {
    const s = this.stateName;
    if (s !== 'Trying' && s !== 'Proceeding') return;
    if (res.status < 200) {
      this.stateName = 'Proceeding';
      this.handlers.onResponse(res, this);
      return;
    }
    this.stateName = 'Completed';
    this.stopTimer('E');
    this.stopTimer('F');
    this.lastFinal = res;
    this.handlers.onResponse(res, this);
    this.afterUnlessReliable('K', this.ctx.timers.T4, () => this.terminate());
  }
}
