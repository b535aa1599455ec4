// What both legs do the same way inside a dialog: send a request in a client transaction (over TCP
// when it is too large for UDP and the peer takes TCP, RFC 3261 18.1.1), ACK every 2xx to a
// re-INVITE of ours (13.2.2.4), and resend our 2xx to the far end's re-INVITE until its ACK
// comes (13.3.1.4 applies to re-INVITEs as well as to the INVITE that made the dialog). LegDialog
// is the whole in-dialog half of a leg, UacLeg's and UasLeg's alike; DialogLeg, the class both
// legs extend, builds it and offers its requests.
import type { Clock } from '../../shared/clock.js';
import type { Dialog } from './dialog/dialog.js';
import { receiveInDialog, requestInDialog, responseInDialog } from './dialog/dialog.js';
import type { HeaderInit } from './message/build.js';
import { createReply } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';
import {
  DialogGoneError,
  InDialogTimeoutError,
  TAKES_CONTACT,
  type DialogRequests,
  type InDialogHandler,
  type InDialogSend,
  type Respond,
} from './dialog-requests.js';
import type { ServerTransaction } from './transaction/server.js';
import type { SipStack } from './stack.js';
import { Retransmit2xx } from './transaction/retransmit-2xx.js';
import type { Destination, TimerValues } from './transaction/types.js';
import { streamForSize, withTopVia } from './transport/size.js';

export interface InDialogSendHandlers {
  /** Every response, provisional and final (and, for INVITE, each 2xx retransmission). */
  readonly onResponse: (res: SipResponse) => void;
  /** No final response: timer B/F, or a transport error (at once, RFC 3261 17.1.4). */
  readonly onFailure: (error: Error) => void;
}

export interface InDialogSendOptions {
  /** The peer takes TCP: a request over 1300 bytes bound for UDP goes over TCP (RFC 3261 18.1.1). */
  readonly largeRequestsOverTcp?: boolean;
  /** A fresh branch (z9hG4bK…) for the UDP resend after a failed TCP attempt. */
  readonly newBranch: () => string;
}

/**
 * Sends one in-dialog request to `to`. Over the size limit, with the peer taking TCP, it goes over
 * TCP to the same host and port with its top Via saying so; if that attempt draws no response
 * (refused, timed out) it goes out over UDP after all as a new transaction.
 */
export function sendInDialogRequest(
  stack: SipStack,
  request: SipRequest,
  to: Destination,
  handlers: InDialogSendHandlers,
  options: InDialogSendOptions,
): void {
  const plain = (req: SipRequest, dest: Destination) =>
    stack.transactions.sendRequest(req, dest, {
      onResponse: (res) => handlers.onResponse(res),
      onTimeout: () => handlers.onFailure(new Error(`no final response to ${req.method}`)),
      onTransportError: (_tx, e) => handlers.onFailure(e ?? new Error(`transport error on ${req.method}`)),
    });
  const stream = options.largeRequestsOverTcp ? streamForSize(request, to) : undefined;
  if (!stream) {
    plain(request, to);
    return;
  }
  let answered = false;
  const overUdp = () => {
    if (answered) return false;
    plain(withTopVia(request, { branch: options.newBranch() }), to);
    return true;
  };
  stack.transactions.sendRequest(stream.request, stream.destination, {
    onResponse: (res) => {
      answered = true;
      handlers.onResponse(res);
    },
    onTimeout: () => overUdp() || handlers.onFailure(new Error(`no final response to ${request.method}`)),
    onTransportError: (_tx, e) =>
      overUdp() || handlers.onFailure(e ?? new Error(`transport error on ${request.method}`)),
  });
}

/**
 * Our 2xx responses to the far end's re-INVITEs, resent until the ACK with the same CSeq number
 * arrives (on UDP; a reliable transport needs no resend but the ACK is still awaited), and a
 * missing ACK after 64*T1 reported so the owner can end the call with BYE.
 */
export class ReinviteAnswers {
  private readonly pending = new Map<number, Retransmit2xx>();

  constructor(
    private readonly o: {
      readonly clock: Clock;
      readonly timers?: Partial<TimerValues>;
      readonly send: (res: SipResponse, to: Destination) => void;
      readonly onNoAck: () => void;
    },
  ) {}

  /** Call after the server transaction sent `res` to `req` (it sends the first copy). */
  answered(req: SipRequest, res: SipResponse, to: Destination): void {
    if (req.method !== 'INVITE' || res.status < 200 || res.status >= 300) return;
    const seq = req.cseq.seq;
    this.pending.get(seq)?.ack();
    const resender = new Retransmit2xx(res, to, {
      clock: this.o.clock,
      ...(this.o.timers ? { timers: this.o.timers } : {}),
      send: (m, d) => this.o.send(m as SipResponse, d),
      onNoAck: () => {
        if (this.pending.get(seq) !== resender) return;
        this.pending.delete(seq);
        this.o.onNoAck();
      },
    });
    this.pending.set(seq, resender);
    resender.start(false);
  }

  /** An ACK in the dialog: true when it acknowledged one of these 2xx responses. */
  ack(req: SipRequest): boolean {
    const resender = this.pending.get(req.cseq.seq);
    if (!resender) return false;
    resender.ack();
    this.pending.delete(req.cseq.seq);
    return true;
  }

  /** The dialog ended: nothing more is resent or reported. */
  stop(): void {
    for (const r of this.pending.values()) r.ack();
    this.pending.clear();
  }

  /** 2xx responses still waiting for their ACK, for tests. */
  get waiting(): number {
    return this.pending.size;
  }
}

/**
 * Checks a far-end request against the dialog (RFC 3261 12.2.2: a CSeq below the last one is 500)
 * and returns how its owner answers it: a 2xx to a re-INVITE or UPDATE refreshes the remote target
 * from the request's Contact, and a 2xx to a re-INVITE is resent until its ACK. Undefined when the
 * request was refused here.
 */
export function answerInDialog(
  req: SipRequest,
  tx: ServerTransaction,
  reinvites: ReinviteAnswers,
  dialog: { get(): Dialog | undefined; set(d: Dialog): void },
): Respond | undefined {
  const before = dialog.get();
  let target = before?.remoteTarget;
  if (before && before.state !== 'terminated') {
    const checked = receiveInDialog(before, req);
    if (!checked.ok) {
      tx.respond(createReply(req, checked.status, checked.reason));
      return undefined;
    }
    target = checked.dialog.remoteTarget;
    dialog.set({ ...checked.dialog, remoteTarget: before.remoteTarget });
  }
  return (status: number, reason: string, headers: HeaderInit[] = [], body?: string) => {
    const res = createReply(req, status, reason, { headers, ...(body !== undefined ? { body } : {}) });
    tx.respond(res);
    if (status < 200 || status >= 300) return;
    const now = dialog.get();
    if (target && now && now.state !== 'terminated') dialog.set({ ...now, remoteTarget: target });
    reinvites.answered(req, res, tx.destination);
  };
}

export interface LegDialogOptions {
  readonly stack: SipStack;
  /** Branches (z9hG4bK + id) for the UDP resend of a request that went over TCP first. */
  readonly newId: () => string;
  /** The peer takes TCP: large in-dialog requests go over TCP first (RFC 3261 18.1.1). */
  readonly largeRequestsOverTcp?: boolean;
  /** Our 2xx responses to the far end's re-INVITEs, resent until their ACKs. */
  readonly reinvites: ReinviteAnswers;
  /** A top Via with a new branch for a request of ours. */
  readonly via: () => string;
  /** Where a request of ours in the dialog goes. */
  readonly destination: (req: SipRequest) => Destination;
  /** Our Contact, for the requests that carry one (TAKES_CONTACT); none yet: left out. */
  readonly contact: () => string | undefined;
  /** An ACK that is not for a 2xx of ours to a re-INVITE (a UAS: the ACK for its first 2xx). */
  readonly onAck?: (ack: SipRequest) => void;
  /** The dialog is over, by our BYE or theirs: the leg stops what it resends itself. */
  readonly onEnd?: () => void;
  /** The far end hung up; its BYE was answered 200. */
  readonly onBye: () => void;
}

/**
 * The in-dialog half of a call leg, the same for both: our requests (resolved with their final
 * response; every 2xx to our re-INVITE gets the ACK), our BYE (also, best effort, on a dialog a
 * 408/481 ended, 12.2.1.2: RFC 4028 10 asks for one then), and the far end's requests: its ACKs,
 * its BYE, and the rest checked (CSeq, target refresh) and handed to the owner's handler, else
 * answered 200 (INFO, OPTIONS), 488 (an offer we cannot take) or 501.
 */
export class LegDialog implements DialogRequests {
  private dialog?: Dialog;
  /** We sent BYE or got one; a dialog a 408/481 ended still gets our BYE (RFC 4028 10). */
  private hungUp = false;
  private handler?: InDialogHandler;
  private unregister?: () => void;

  constructor(private readonly o: LegDialogOptions) {}

  /** The dialog is established: its requests reach this leg from now on. */
  open(dialog: Dialog): void {
    this.dialog = dialog;
    this.unregister = this.o.stack.registerDialog(dialog.id, (req, tx) => this.receive(req, tx));
  }

  /** Whether a dialog was ever opened (it may have ended since). */
  get opened(): boolean {
    return this.dialog !== undefined;
  }

  onRequest(handler: InDialogHandler | undefined): void {
    this.handler = handler;
  }

  sendInDialog(method: string, options: InDialogSend = {}): Promise<SipResponse> {
    if (!this.dialog || this.dialog.state === 'terminated') return Promise.reject(new DialogGoneError());
    const contact = TAKES_CONTACT.has(method) ? this.o.contact() : undefined;
    const { request, dialog } = requestInDialog(this.dialog, {
      method,
      via: this.o.via(),
      ...(contact ? { contact } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    this.dialog = dialog;
    const to = this.o.destination(request);
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
                  via: this.o.via(),
                  cseq: request.cseq.seq,
                }).request;
              }
              this.o.stack.send(ack, this.o.destination(ack));
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

  /** BYE, also (best effort) on a dialog a 408/481 ended (12.2.1.2): RFC 4028 10 asks for one then. */
  bye(): void {
    if (!this.dialog || this.hungUp) return;
    this.hungUp = true;
    const { request, dialog } = requestInDialog(this.dialog, { method: 'BYE', via: this.o.via() });
    this.dialog = { ...dialog, state: 'terminated' };
    this.o.onEnd?.();
    this.o.reinvites.stop();
    this.unregister?.();
    sendInDialogRequest(
      this.o.stack,
      request,
      this.o.destination(request),
      { onResponse: () => undefined, onFailure: () => undefined },
      this.sendOptions(),
    );
  }

  private sendOptions(): InDialogSendOptions {
    return {
      largeRequestsOverTcp: this.o.largeRequestsOverTcp === true,
      newBranch: () => `z9hG4bK${this.o.newId()}`,
    };
  }

  private receive(req: SipRequest, tx: ServerTransaction | undefined): void {
    if (req.method === 'ACK') {
      // For a 2xx of ours to the far end's re-INVITE, else the leg's own.
      if (!this.o.reinvites.ack(req)) this.o.onAck?.(req);
      return;
    }
    if (!tx) return;
    if (req.method === 'BYE') {
      tx.respond(createReply(req, 200, 'OK'));
      this.hungUp = true;
      this.o.onEnd?.();
      this.o.reinvites.stop();
      this.dialog = this.dialog && { ...this.dialog, state: 'terminated' };
      this.unregister?.();
      this.o.onBye();
      return;
    }
    const respond = answerInDialog(req, tx, this.o.reinvites, {
      get: () => this.dialog,
      set: (d) => (this.dialog = d),
    });
    if (!respond) return;
    if (this.handler?.(req, respond)) return;
    // Without an owner's handler: INFO and OPTIONS are fine, an offer we cannot take is 488.
    const ok = req.method === 'INFO' || req.method === 'OPTIONS';
    if (ok) return respond(200, 'OK');
    if (req.method === 'INVITE' || req.method === 'UPDATE') return respond(488, 'Not Acceptable Here');
    respond(501, 'Not Implemented');
  }
}

/** What a leg gives its in-dialog half, the re-INVITE answers' clock and missing-ACK report aside. */
export interface DialogLegSetup extends Omit<LegDialogOptions, 'reinvites'> {
  readonly clock: Clock;
  /** Our 2xx to a re-INVITE of the far end's was never acknowledged (64*T1). */
  readonly onNoAck: () => void;
}

/**
 * A call leg (UacLeg, UasLeg) as the call controller asks it for in-dialog requests: its
 * LegDialog, with its answers to the far end's re-INVITEs resent on the stack's timers, does them.
 */
export abstract class DialogLeg implements DialogRequests {
  protected dialog!: LegDialog;
  protected reinvites!: ReinviteAnswers;

  /** Builds the leg's in-dialog half (once, from the leg's constructor). */
  protected openDialogHalf(setup: DialogLegSetup): void {
    const { clock, onNoAck, ...options } = setup;
    this.reinvites = new ReinviteAnswers({
      clock,
      timers: setup.stack.timers,
      send: (res, to) => void setup.stack.send(res, to),
      onNoAck,
    });
    this.dialog = new LegDialog({ ...options, reinvites: this.reinvites });
  }

  onRequest(handler: InDialogHandler | undefined): void {
    this.dialog.onRequest(handler);
  }

  sendInDialog(method: string, options: InDialogSend = {}): Promise<SipResponse> {
    return this.dialog.sendInDialog(method, options);
  }

  /** BYE, also (best effort) on a dialog a 408/481 ended (12.2.1.2): RFC 4028 10 asks for one then. */
  bye(): void {
    this.dialog.bye();
  }
}
