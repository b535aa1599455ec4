// One outbound INVITE leg on the SipStack, in the shape the call controller's SipLeg asks for
// (src/telephony/calls/outbound/sip-leg.ts, matched structurally so this folder imports nothing of calls):
// INVITE (with the owner's extra header fields, e.g. session timers), one answer to a 401/407, up
// to two retries after a 422 with the interval the far end asks for (RFC 4028 7.4), ACK for 2xx,
// CANCEL (deferred until a provisional, RFC 3261 9.1), BYE, and the far end's BYE through the
// dialog; a 2xx the owner gives the far end's re-INVITE is resent until its ACK (13.3.1.4).
// RFC 3263 fallbacks: the next destination after a transport error, timer B, a 503, or (the
// stack's failoverMs) an INVITE that drew no response at all for a few seconds, whose branch is
// then abandoned quietly (abandoned-branch.ts deals with it should it wake up).
import { isIP } from 'node:net';
import type { TimerHandle } from '../../shared/clock.js';
import { AbandonedBranch } from './abandoned-branch.js';
import { retryWithCredentials, withFreshCredentials } from './auth-retry.js';
import { dialogFromUac, isDialog, requestInDialog } from './dialog/dialog.js';
import { DigestClient } from './digest.js';
import { MAX_422_RETRIES, retryAfter422 } from './extensions/session-timer.js';
import { cancelOf } from './next-attempt.js';
import { createRequest } from './message/build.js';
import type { HeaderInit } from './message/build.js';
import { formatVia } from './message/headers.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { DialogLeg } from './in-dialog.js';
import type { SipStack } from './stack.js';
import type { ClientInviteTransaction } from './transaction/client.js';
import type { Destination, TransportName } from './transaction/types.js';
import type { ResolveTarget } from './transport/resolve.js';
import { isReliable, requestDestination } from './transport/routing.js';
import { streamForSize, withTopVia } from './transport/size.js';

export interface LegTarget {
  readonly uri: string;
  readonly host: string;
  readonly port: number | null;
  readonly transport: 'udp' | 'tcp' | 'tls';
}

export interface LegInvite {
  readonly from: string;
  readonly auth: { readonly username: string; readonly password: string };
  readonly callId: string;
}

export interface LegEvents {
  provisional(status: number): void;
  final(status: number, info: { withCredentials: boolean }): void;
  bye(): void;
  transportError(error?: Error): void;
  /**
   * Our 2xx to the far end's re-INVITE was never acknowledged (64*T1): the call is dead, send BYE.
   * Without this handler the leg sends the BYE itself and reports bye().
   */
  ackTimeout?(): void;
}

export interface UacLegOptions {
  readonly stack: SipStack;
  /** Our address as peers should reach it (Via sent-by, Contact). */
  readonly localHost: string;
  readonly localPort: number;
  /** Branches, tags and Call-IDs; injected so tests are deterministic. */
  readonly newId: () => string;
  /** The SDP offer to send, and where the answer goes (media is not this folder's business). */
  readonly offer?: () => string;
  readonly onAnswer?: (sdp: string) => void;
  /**
   * A provisional response (101–199) to the INVITE carried SDP: the far end's early media
   * (RFC 3960), e.g. a 183 Session Progress with the PSTN's ringback or announcements.
   */
  readonly onEarlyAnswer?: (sdp: string, status: number) => void;
  /**
   * RFC 3263: the destinations to try, in order, for a target whose host is a name (e.g.
   * `(t) => resolver.resolve(t)` with transport/resolve.ts's SipResolver). The INVITE moves on to
   * the next one, with a new branch, after a transport error, a timeout or a 503 (4.3). Without
   * it the host goes to the transport as it is.
   */
  readonly resolve?: (target: ResolveTarget) => Promise<Destination[]>;
  /**
   * The target takes TCP too: an INVITE, and later any in-dialog request, over 1300 bytes bound
   * for UDP goes over TCP instead (RFC 3261 18.1.1), and over UDP after all if TCP fails. Off by
   * default, as UDP-only trunks are common.
   */
  readonly largeRequestsOverTcp?: boolean;
  /** Extra header fields for the dialog-creating INVITE (session timers: Supported, Session-Expires, Min-SE). */
  readonly inviteHeaders?: readonly HeaderInit[];
  /** The first 2xx to the INVITE, before final() reports it (its Session-Expires sets the dialog's timer). */
  readonly on2xx?: (res: SipResponse) => void;
}

export class UacLeg extends DialogLeg {
  private request?: SipRequest;
  private destination?: Destination;
  private ack?: SipRequest;
  private provisionalSeen = false;
  private finalSeen = false;
  private cancelWanted = false;
  private withCredentials = false;
  /** The 401/407 we answered: a later attempt (after a 422) answers it again with a fresh count. */
  private challenged?: SipResponse;
  private retries422 = 0;
  private events?: LegEvents;
  private contact?: string;
  /** Destinations still to try (RFC 3263 4.3), and whether the current attempt drew any response. */
  private fallbacks: Destination[] = [];
  private attemptAnswered = false;
  /** Moves a silent attempt on to the next destination before timer B (the stack's failoverMs). */
  private failoverTimer?: TimerHandle;
  /** Attempts given up on by the failover timer: what they say late goes there, not to the call. */
  private readonly abandoned = new Map<SipRequest, AbandonedBranch>();
  /** The UDP destination a size-switched request falls back to; never switched again. */
  private udpAfterTcp?: Destination;

  constructor(private readonly o: UacLegOptions) {
    super();
    this.openDialogHalf({
      clock: o.stack.clock,
      onNoAck: () => {
        if (this.events?.ackTimeout) return this.events.ackTimeout();
        this.bye();
        this.events?.bye();
      },
      stack: o.stack,
      newId: o.newId,
      largeRequestsOverTcp: o.largeRequestsOverTcp,
      via: () => this.via(),
      destination: (req) => this.nextHop(req),
      contact: () => this.contact,
      onBye: () => this.events?.bye(),
    });
  }

  invite(target: LegTarget, options: LegInvite, events: LegEvents): void {
    this.events = events;
    const transport = target.transport.toUpperCase() as TransportName;
    const port = target.port ?? (transport === 'TLS' ? 5061 : 5060);
    this.destination = { transport, host: target.host, port, reliable: isReliable(transport) };
    const local = `${this.o.localHost}:${this.o.localPort}`;
    this.contact = `<sip:${options.from}@${local}${transport === 'UDP' ? '' : `;transport=${target.transport}`}>`;
    const headers: HeaderInit[] = [
      ['Via', `SIP/2.0/${transport} ${local};branch=z9hG4bK${this.o.newId()};rport`],
      ['Max-Forwards', '70'],
      ['From', `<sip:${options.from}@${this.o.localHost}>;tag=${this.o.newId()}`],
      ['To', `<${target.uri}>`],
      ['Call-ID', `${this.o.newId()}@${this.o.localHost}`],
      ['CSeq', '1 INVITE'],
      ['Contact', this.contact],
      ...(this.o.inviteHeaders ?? []),
    ];
    const sdp = this.o.offer?.();
    if (sdp !== undefined) headers.push(['Content-Type', 'application/sdp']);
    const req = createRequest({
      method: 'INVITE',
      uri: target.uri,
      headers,
      ...(sdp !== undefined ? { body: sdp } : {}),
    });
    const client = new DigestClient(options.auth);
    if (!this.o.resolve || isIP(target.host) !== 0) return this.send(req, client);
    const secure = /^sips:/i.test(target.uri);
    this.o.resolve({ host: target.host, port: target.port, transport: target.transport, secure }).then(
      (list) => {
        if (this.finalSeen) return;
        if (this.cancelWanted) {
          // Cancelled while DNS answered: nothing was sent, so the INVITE simply ends here.
          this.finalSeen = true;
          return this.events?.final(487, { withCredentials: false });
        }
        if (list.length === 0) return this.failed(new Error(`no destination for ${target.host}`));
        this.destination = list[0];
        this.fallbacks = list.slice(1);
        this.send(req, client);
      },
      (err: unknown) => this.failed(err instanceof Error ? err : new Error(String(err))),
    );
  }

  private send(req: SipRequest, client: DigestClient): void {
    if (this.o.largeRequestsOverTcp && this.destination !== this.udpAfterTcp) {
      const stream = streamForSize(req, this.destination!);
      if (stream) {
        this.udpAfterTcp = this.destination;
        this.fallbacks.unshift(this.destination!);
        this.destination = stream.destination;
        req = stream.request;
      }
    }
    this.request = req;
    this.attemptAnswered = false;
    const destination = this.destination!;
    this.stopFailover();
    const tx = this.o.stack.transactions.sendRequest(req, destination, {
      onResponse: (res) => {
        const abandoned = this.abandoned.get(req);
        if (abandoned) return abandoned.onResponse(res);
        if (req === this.request) {
          this.attemptAnswered = true;
          this.stopFailover();
        }
        this.onResponse(req, res, client);
      },
      onTimeout: () =>
        req === this.request &&
        (this.nextTarget(req, client) || this.failed(new Error('no final response (timer B)'))),
      // At once when the connection cannot be opened (refused, TLS handshake), not after timer B.
      onTransportError: (_tx, error) =>
        req === this.request &&
        (this.nextTarget(req, client) ||
          this.failed(new Error(`transport error${error ? `: ${error.message}` : ''}`))),
    }) as ClientInviteTransaction;
    // A send that failed at once has moved on (or ended the leg) from inside sendRequest already.
    if (req === this.request && !tx.terminated)
      this.armFailover(() => this.failover(req, destination, tx, client));
  }

  /** Only while another destination is left: the last one gets the whole of timer B. */
  private armFailover(fire: () => void): void {
    this.stopFailover();
    const ms = this.o.stack.failoverMs;
    if (ms > 0 && this.fallbacks.length > 0) this.failoverTimer = this.o.stack.clock.setTimeout(fire, ms);
  }

  private stopFailover(): void {
    if (this.failoverTimer) this.o.stack.clock.clearTimeout(this.failoverTimer);
    this.failoverTimer = undefined;
  }

  /**
   * No response at all to this attempt within the failover bound: its destination is as good as
   * dead. Its transaction stops quietly (no CANCEL is possible without a provisional) and the
   * INVITE goes to the next destination.
   */
  private failover(
    req: SipRequest,
    destination: Destination,
    tx: ClientInviteTransaction,
    client: DigestClient,
  ): void {
    this.failoverTimer = undefined;
    if (req !== this.request || this.attemptAnswered || this.finalSeen || this.cancelWanted) return;
    if (this.fallbacks.length === 0 || !tx.abandon()) return;
    this.abandoned.set(
      req,
      new AbandonedBranch({ stack: this.o.stack, request: req, destination, via: () => this.via() }),
    );
    this.nextTarget(req, client);
  }

  /**
   * The same INVITE, with a new branch, to the next destination (RFC 3263 4.3); false when there
   * is none, or this attempt already got an answer (only a 503 moves on then) or was cancelled.
   */
  private nextTarget(req: SipRequest, client: DigestClient, after503 = false): boolean {
    if (this.finalSeen || this.cancelWanted || req !== this.request) return false;
    if (this.attemptAnswered && !after503) return false;
    const next = this.fallbacks.shift();
    if (!next) return false;
    this.destination = next;
    this.provisionalSeen = false;
    this.send(withTopVia(req, { transport: next.transport, branch: `z9hG4bK${this.o.newId()}` }), client);
    return true;
  }

  private failed(error: Error): void {
    if (this.finalSeen) return;
    this.finalSeen = true;
    this.stopFailover();
    this.events?.transportError(error);
  }

  private onResponse(req: SipRequest, res: SipResponse, client: DigestClient): void {
    if (res.status < 200) {
      if (req !== this.request) return;
      this.provisionalSeen = true;
      if (res.status > 100 && res.body.length > 0)
        this.o.onEarlyAnswer?.(new TextDecoder().decode(res.body), res.status);
      this.events?.provisional(res.status);
      if (this.cancelWanted) this.sendCancel();
      return;
    }
    if (res.status < 300) {
      // Every 2xx (retransmissions too) gets the ACK; only the first makes the dialog.
      if (!this.dialog.opened) {
        const d = dialogFromUac(req, res);
        if (!isDialog(d)) return this.failed(new Error(d.reason));
        this.ack = requestInDialog(d, { method: 'ACK', via: this.via(), cseq: req.cseq.seq }).request;
        this.dialog.open(d);
        this.o.on2xx?.(res);
      }
      this.o.stack.send(this.ack!, this.nextHop(this.ack!));
      if (this.finalSeen) return;
      this.finalSeen = true;
      if (res.body.length > 0) this.o.onAnswer?.(new TextDecoder().decode(res.body));
      this.events?.final(res.status, { withCredentials: this.withCredentials });
      return;
    }
    if (this.finalSeen) return;
    if (res.status === 503 && this.nextTarget(req, client, true)) return;
    if ((res.status === 401 || res.status === 407) && !this.withCredentials && !this.cancelWanted) {
      const retry = retryWithCredentials(req, res, client, { branch: `z9hG4bK${this.o.newId()}` });
      if (retry) {
        // The first challenge is answered here and never reported (the state machine's contract).
        this.withCredentials = true;
        this.challenged = res;
        this.provisionalSeen = false;
        return this.send(retry, client);
      }
    }
    if (res.status === 422 && this.retries422 < MAX_422_RETRIES && !this.cancelWanted) {
      // Our session interval is below the far end's Min-SE: ask again with theirs (RFC 4028 7.4).
      const retry = retryAfter422(req, res, `z9hG4bK${this.o.newId()}`);
      if (retry) {
        this.retries422++;
        this.provisionalSeen = false;
        return this.send(
          this.challenged ? withFreshCredentials(retry, this.challenged, client) : retry,
          client,
        );
      }
    }
    this.finalSeen = true;
    this.events?.final(res.status, { withCredentials: this.withCredentials });
  }

  private via(): string {
    const v = this.request!.via[0];
    const params = new Map(v.params);
    params.set('branch', `z9hG4bK${this.o.newId()}`);
    return formatVia({ ...v, params });
  }

  private sendCancel(): void {
    const cancel = cancelOf(this.request!);
    this.o.stack.transactions.sendRequest(cancel, this.destination!, { onResponse: () => undefined });
  }

  /** CANCEL before a final response; held back until a provisional arrived (RFC 3261 9.1). */
  cancel(): void {
    if (this.finalSeen || this.cancelWanted) return;
    this.cancelWanted = true;
    if (this.provisionalSeen) this.sendCancel();
  }

  /** In-dialog requests follow the route set or the remote target (RFC 3261 12.2.1.1), not the first target. */
  private nextHop(req: SipRequest): Destination {
    return requestDestination(req) ?? this.destination!;
  }
}
