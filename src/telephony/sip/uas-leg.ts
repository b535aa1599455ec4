// One inbound INVITE leg on the SipStack, for the call controller: ring (early dialog), answer
// with SDP (the 2xx resent until the ACK, RFC 3261 13.3.1.4, and so is a 2xx the owner gives a
// re-INVITE), reject, hang up, and hear the caller's CANCEL or BYE.
import type { Clock } from '../../shared/clock.js';
import type { Dialog } from './dialog/dialog.js';
import { dialogFromUas, isDialog, requestInDialog, responseInDialog } from './dialog/dialog.js';
import { createReply } from './message/build.js';
import type { HeaderInit } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';
import {
  DialogGoneError,
  InDialogTimeoutError,
  TAKES_CONTACT,
  type DialogRequests,
  type InDialogHandler,
  type InDialogSend,
} from './dialog-requests.js';
import { ReinviteAnswers, answerInDialog, sendInDialogRequest } from './in-dialog.js';
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

export class UasLeg implements DialogRequests {
  private readonly tag: string;
  private dialog?: Dialog;
  private resender?: Retransmit2xx;
  private unregister?: () => void;
  private readonly stopCancel: () => void;
  private finished = false;
  /** We sent BYE or got one; a dialog a 408/481 ended still gets our BYE (RFC 4028 10). */
  private hungUp = false;
  private handler?: InDialogHandler;
  private readonly reinvites: ReinviteAnswers;
  acked = false;

  constructor(
    private readonly o: UasLegOptions,
    readonly request: SipRequest,
    private readonly tx: ServerTransaction,
    private readonly events: UasLegEvents,
  ) {
    this.tag = o.newId();
    this.reinvites = new ReinviteAnswers({
      clock: o.clock,
      timers: o.stack.timers,
      send: (res, to) => void this.o.stack.send(res, to),
      onNoAck: () => this.events.ackTimeout(),
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
    this.dialog = d;
    this.unregister = this.o.stack.registerDialog(d.id, (req, tx) => this.inDialog(req, tx));
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

  onRequest(handler: InDialogHandler | undefined): void {
    this.handler = handler;
  }

  sendInDialog(method: string, options: InDialogSend = {}): Promise<SipResponse> {
    if (!this.dialog || this.dialog.state === 'terminated') return Promise.reject(new DialogGoneError());
    const { request, dialog } = requestInDialog(this.dialog, {
      method,
      via: this.via(),
      ...(TAKES_CONTACT.has(method) ? { contact: this.o.contact } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    this.dialog = dialog;
    const to = this.inDialogDestination(request);
    let ack: SipRequest | undefined;
    let settled = false;
    return new Promise((resolve, reject) => {
      sendInDialogRequest(
        this.o.stack,
        request,
        to,
        {
          onResponse: (res) => {
            if (res.status < 200) return;
            if (method === 'INVITE' && res.status < 300 && this.dialog) {
              // Every 2xx to our re-INVITE (retransmissions too) gets the ACK (RFC 3261 13.2.2.4).
              if (!ack) {
                if (this.dialog.state !== 'terminated')
                  this.dialog = responseInDialog(this.dialog, request, res);
                ack = requestInDialog(this.dialog, {
                  method: 'ACK',
                  via: this.via(),
                  cseq: request.cseq.seq,
                }).request;
              }
              this.o.stack.send(ack, this.inDialogDestination(ack));
            } else if (!settled && this.dialog && this.dialog.state !== 'terminated') {
              this.dialog = responseInDialog(this.dialog, request, res);
            }
            if (settled) return;
            settled = true;
            resolve(res);
          },
          onFailure: () => reject(new InDialogTimeoutError(method)),
        },
        this.sendOptions(),
      );
    });
  }

  private sendOptions() {
    return {
      largeRequestsOverTcp: this.o.largeRequestsOverTcp === true,
      newBranch: () => `z9hG4bK${this.o.newId()}`,
    };
  }

  /** BYE, also (best effort) on a dialog a 408/481 ended (12.2.1.2): RFC 4028 10 asks for one then. */
  bye(): void {
    if (!this.dialog || this.hungUp) return;
    this.hungUp = true;
    const { request, dialog } = requestInDialog(this.dialog, { method: 'BYE', via: this.via() });
    this.dialog = { ...dialog, state: 'terminated' };
    this.resender?.ack();
    this.reinvites.stop();
    this.unregister?.();
    const to = this.inDialogDestination(request);
    sendInDialogRequest(
      this.o.stack,
      request,
      to,
      { onResponse: () => undefined, onFailure: () => undefined },
      this.sendOptions(),
    );
  }

  private inDialog(req: SipRequest, tx: ServerTransaction | undefined): void {
    if (req.method === 'ACK') {
      if (this.reinvites.ack(req)) return;
      if (req.cseq.seq !== this.request.cseq.seq) return; // a late copy of a re-INVITE's ACK
      const first = !this.acked;
      this.acked = true;
      this.resender?.ack();
      if (first) this.events.acked?.(req);
      return;
    }
    if (!tx) return;
    if (req.method === 'BYE') {
      tx.respond(createReply(req, 200, 'OK'));
      this.hungUp = true;
      this.resender?.ack();
      this.reinvites.stop();
      this.dialog = this.dialog && { ...this.dialog, state: 'terminated' };
      this.unregister?.();
      this.events.bye();
      return;
    }
    const respond = answerInDialog(req, tx, this.reinvites, {
      get: () => this.dialog,
      set: (d) => (this.dialog = d),
    });
    if (!respond) return;
    if (this.handler?.(req, respond)) return;
    const ok = req.method === 'INFO' || req.method === 'OPTIONS';
    if (ok) return respond(200, 'OK');
    if (req.method === 'INVITE' || req.method === 'UPDATE') return respond(488, 'Not Acceptable Here');
    respond(501, 'Not Implemented');
  }
}
