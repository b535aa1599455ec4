// One inbound INVITE leg on the SipStack, for the call controller: ring (early dialog), answer
// with SDP (the 2xx resent until the ACK, RFC 3261 13.3.1.4, and so is a 2xx the owner gives a
// re-INVITE), reject, hang up, and hear the caller's CANCEL or BYE.
import type { Clock } from '../../shared/clock.js';
import { dialogFromUas, isDialog } from './dialog/dialog.js';
import { createReply } from './message/build.js';
import type { HeaderInit } from './message/build.js';
import type { SipRequest } from './message/types.js';
import { DialogLeg } from './in-dialog.js';
import type { SipStack } from './stack.js';
import type { ServerTransaction } from './transaction/server.js';
import { Retransmit2xx } from './transaction/retransmit-2xx.js';
import { requestDestination } from './transport/routing.js';
import type { Destination } from './transaction/types.js';

export interface UasLegEvents {
  /** The caller cancelled before the answer; the stack already sent 200 and 487. */
  cancelled(): void;
  /** The caller hung up (answered 200). */
  bye(): void;
  /** Our 2xx (to the INVITE or to a re-INVITE) was never acknowledged (64*T1): the call is dead, send BYE. */
  ackTimeout(): void;
  /**
   * The ACK for our 2xx arrived (the first one only): the call is up. When our 2xx carried the offer
   * (the INVITE had none: a late offer, RFC 3264), the caller's answer is this ACK's body.
   */
  acked?(ack: SipRequest): void;
}

export interface UasLegOptions {
  readonly stack: SipStack;
  readonly clock: Clock;
  /** Our Contact, e.g. `<sip:sb@203.0.113.5:5060>`. */
  readonly contact: string;
  readonly newId: () => string;
  readonly localHost: string;
  readonly localPort: number;
  /**
   * The caller takes TCP too: an in-dialog request over 1300 bytes bound for UDP goes over TCP to
   * the same host and port (RFC 3261 18.1.1), and over UDP after all if TCP fails. Off by default.
   */
  readonly largeRequestsOverTcp?: boolean;
}

export class UasLeg extends DialogLeg {
  private readonly tag: string;
  private resender?: Retransmit2xx;
  private readonly stopCancel: () => void;
  private finished = false;
  acked = false;

  constructor(
    private readonly o: UasLegOptions,
    readonly request: SipRequest,
    private readonly tx: ServerTransaction,
    private readonly events: UasLegEvents,
  ) {
    super();
    this.tag = o.newId();
    this.openDialogHalf({
      clock: o.clock,
      onNoAck: () => this.events.ackTimeout(),
      stack: o.stack,
      newId: o.newId,
      largeRequestsOverTcp: o.largeRequestsOverTcp,
      via: () => this.via(),
      destination: (req) => this.inDialogDestination(req),
      contact: () => this.o.contact,
      onAck: (ack) => {
        if (ack.cseq.seq !== this.request.cseq.seq) return; // a late copy of a re-INVITE's ACK
        const first = !this.acked;
        this.acked = true;
        this.resender?.ack();
        if (first) this.events.acked?.(ack);
      },
      onEnd: () => this.resender?.ack(),
      onBye: () => this.events.bye(),
    });
    this.stopCancel = o.stack.onCancel(tx, () => {
      this.finished = true;
      this.events.cancelled();
    });
  }

  private reply(status: number, reason: string, headers: HeaderInit[] = [], body?: string) {
    return createReply(this.request, status, reason, {
      toTag: this.tag,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
  }

  /** 180 Ringing, or 183 with early media SDP. */
  ring(status = 180, sdp?: string): void {
    if (this.finished) return;
    const headers: HeaderInit[] = [['Contact', this.o.contact]];
    if (sdp !== undefined) headers.push(['Content-Type', 'application/sdp']);
    this.tx.respond(this.reply(status, status === 183 ? 'Session Progress' : 'Ringing', headers, sdp));
  }

  answer(sdp: string, extraHeaders: HeaderInit[] = []): void {
    if (this.finished) return;
    this.finished = true;
    this.stopCancel();
    const ok = this.reply(
      200,
      'OK',
      [['Contact', this.o.contact], ['Content-Type', 'application/sdp'], ...extraHeaders],
      sdp,
    );
    const d = dialogFromUas(this.request, ok);
    if (!isDialog(d)) {
      this.tx.respond(this.reply(400, d.reason));
      return;
    }
    this.dialog.open(d);
    this.tx.respond(ok);
    // The transaction ends with the 2xx (RFC 6026); resending it until the ACK is ours.
    this.resender = new Retransmit2xx(ok, this.tx.destination, {
      clock: this.o.clock,
      timers: this.o.stack.timers,
      send: (m, to) => this.o.stack.send(m, to),
      onNoAck: () => this.events.ackTimeout(),
    });
    this.resender.start(false);
  }

  reject(status: number, reason: string, headers: HeaderInit[] = []): void {
    if (this.finished) return;
    this.finished = true;
    this.stopCancel();
    this.tx.respond(this.reply(status, reason, headers));
  }

  private via(): string {
    return `SIP/2.0/${this.tx.destination.transport} ${this.o.localHost}:${this.o.localPort};branch=z9hG4bK${this.o.newId()};rport`;
  }

  /**
   * Where a request of ours in this dialog goes. Over TCP or TLS without a route set it goes back
   * on the caller's own connection: a phone behind NAT, or a TLS client such as baresip, cannot
   * accept a new connection to its Contact (RFC 5923's reuse; the transport falls back to the
   * Contact's address should that connection have closed).
   */
  private inDialogDestination(request: SipRequest): Destination {
    const first = this.tx.destination;
    const next = requestDestination(request);
    if (!next) return first;
    if (
      first.reliable &&
      first.connectionId !== undefined &&
      request.route.length === 0 &&
      next.transport === first.transport
    ) {
      return { ...next, connectionId: first.connectionId };
    }
    return next;
  }
}
