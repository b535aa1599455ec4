// The SIP stack as a service runs it: UDP, TCP and TLS listeners feeding one receiver and one
// transaction layer, OPTIONS answered (RFC 3261 11), CANCEL matched to its INVITE (9.2), and
// every request nobody handles refused with a proper final response.
import type { ConnectionOptions } from 'node:tls';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import type { DialogId } from './dialog/dialog.js';
import { dialogIdOf, dialogKey } from './dialog/dialog.js';
import type { HeaderInit } from './message/build.js';
import { createReply } from './message/build.js';
import type { SipLimits } from './message/limits.js';
import type { SipMessage, SipRequest } from './message/types.js';
import type { RequestPolicy } from './message/validate.js';
import { DEFAULT_POLICY } from './message/validate.js';
import type { OverloadRefusal } from './overload.js';
import { TransactionManager } from './transaction/manager.js';
import type { ServerTransaction } from './transaction/server.js';
import type { Destination, TimerValues } from './transaction/types.js';
import { Receiver } from './transport/receiver.js';
import type { Source } from './transport/routing.js';
import { isReliable, responseDestination } from './transport/routing.js';
import { StreamTransport } from './transport/stream.js';
import type { ThrottleOptions } from './transport/throttle.js';
import { UdpTransport } from './transport/udp.js';

/** Methods the parser and stack know; a method outside this list gets 501 (RFC 3261 8.2.1). */
const KNOWN = [
  'INVITE',
  'ACK',
  'BYE',
  'CANCEL',
  'OPTIONS',
  'REGISTER',
  'INFO',
  'UPDATE',
  'REFER',
  'NOTIFY',
  'SUBSCRIBE',
  'MESSAGE',
  'PRACK',
  'PUBLISH',
];
/** Methods that only make sense inside a dialog: without a handler there is no dialog, so 481. */
const IN_DIALOG = ['BYE', 'INFO', 'UPDATE', 'NOTIFY', 'PRACK', 'REFER'];

export interface SipStackOptions {
  readonly clock: Clock;
  readonly host: string;
  /** UDP and TCP share the port, as SIP_PORT promises (README); 0 picks a free one, undefined turns them off. */
  readonly port?: number;
  /** A TLS listener (SIP_TLS_CERT); without it TLS only goes out, on connections we open. */
  readonly tls?: { readonly port: number; readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Options for the TLS connections we open (the CAs trusted: SIP_TLS_CA, a test's own). */
  readonly tlsClient?: ConnectionOptions;
  readonly policy?: RequestPolicy;
  readonly limits?: Partial<SipLimits>;
  readonly throttle?: ThrottleOptions;
  readonly timers?: Partial<TimerValues>;
  /**
   * SIP_FAILOVER_SECONDS in ms: an INVITE that drew no response at all (not even 100 Trying) for
   * this long moves on to the next RFC 3263 destination when there is one (uac-leg.ts), instead
   * of waiting out timer B. Absent or 0: only timer B, a transport error or a 503 move it on.
   */
  readonly failoverMs?: number;
  readonly idleMs?: number;
  /** Methods we accept; others known to us get 405 with Allow. */
  readonly allow?: readonly string[];
  readonly serverName?: string;
  readonly newTag?: () => string;
  /**
   * The transaction user. Return true when it took the request (and will answer through tx).
   * `source` is where the packet came from (transport, address, port, connection), never what its
   * Via claims: admission checks such as a trunk's allowed_ips read it.
   */
  readonly onRequest?: (req: SipRequest, tx: ServerTransaction, source: Source) => boolean;
  /**
   * Overload control (an OverloadGate): asked for every INVITE that opens a dialog before
   * onRequest sees it; a refusal is answered 503 with its Retry-After here and then.
   */
  readonly admission?: { admit(): OverloadRefusal | undefined };
  /** Bytes queued at most for one TCP or TLS peer that is not reading; past it the connection closes. */
  readonly maxWriteQueueBytes?: number;
}

/**
 * Gets a dialog's incoming requests; tx is undefined for an ACK to a 2xx. `source` is the packet's
 * real source, as for onRequest.
 */
export type DialogHandler = (req: SipRequest, tx: ServerTransaction | undefined, source: Source) => void;

export class SipStack {
  readonly transactions: TransactionManager;
  readonly receiver: Receiver;
  private udp?: UdpTransport;
  private tcp?: StreamTransport;
  private tls?: StreamTransport;
  private readonly allow: readonly string[];
  private readonly newTag: () => string;
  private readonly dialogs = new Map<string, DialogHandler>();
  private readonly cancelWatchers = new Map<ServerTransaction, () => void>();

  constructor(private readonly options: SipStackOptions) {
    this.allow = options.allow ?? [
      'INVITE',
      'ACK',
      'BYE',
      'CANCEL',
      'OPTIONS',
      'INFO',
      'UPDATE',
      'REFER',
      'NOTIFY',
    ];
    this.newTag = options.newTag ?? (() => randomBytes(6).toString('hex'));
    this.transactions = new TransactionManager({
      clock: options.clock,
      send: (m, d, onError) => this.send(m, d, onError),
      ...(options.timers ? { timers: options.timers } : {}),
      onRequest: (req, tx, source) => this.dispatch(req, tx, source),
    });
    this.receiver = new Receiver({
      clock: options.clock,
      policy: options.policy ?? DEFAULT_POLICY,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.throttle ? { throttle: options.throttle } : {}),
      handler: {
        onRequest: (req, source) =>
          this.transactions.receiveRequest(req, responseDestination(req.via[0], source), source),
        onResponse: (res, source) => this.transactions.receiveResponse(res, this.destinationOf(source)),
      },
    });
  }

  /** The clock and timer values the stack runs on, for the legs' own timers (2xx resends). */
  get clock(): Clock {
    return this.options.clock;
  }

  get timers(): Partial<TimerValues> {
    return this.options.timers ?? {};
  }

  /** How long an INVITE waits for any response before the next destination is tried (0: timer B only). */
  get failoverMs(): number {
    return this.options.failoverMs ?? 0;
  }

  private destinationOf(s: Source): Destination {
    const d = { transport: s.transport, host: s.address, port: s.port, reliable: isReliable(s.transport) };
    return s.connectionId !== undefined ? { ...d, connectionId: s.connectionId } : d;
  }

  async listen(): Promise<{ udp?: number; tcp?: number; tls?: number }> {
    const o = this.options;
    const ports: { udp?: number; tcp?: number; tls?: number } = {};
    if (o.port !== undefined) {
      const common = {
        host: o.host,
        receiver: this.receiver,
        clock: o.clock,
        ...(o.idleMs ? { idleMs: o.idleMs } : {}),
        ...(o.maxWriteQueueBytes ? { maxWriteQueueBytes: o.maxWriteQueueBytes } : {}),
      };
      // UDP and TCP share one port. With port 0 the UDP port is picked first and TCP may find that
      // number taken by someone else's TCP socket: then pick another pair (a fixed port just fails).
      for (let attempt = 1; ; attempt++) {
        this.udp = new UdpTransport({ host: o.host, port: o.port, receiver: this.receiver });
        ports.udp = (await this.udp.listen()).port;
        this.tcp = new StreamTransport({ ...common, transport: 'TCP', port: ports.udp });
        try {
          ports.tcp = (await this.tcp.listen()).port;
          break;
        } catch (err) {
          await this.udp.close();
          this.udp = undefined;
          this.tcp = undefined;
          const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
          if (!taken || o.port !== 0 || attempt >= 10) throw err;
        }
      }
    }
    // TLS out (a trunk's termination host or registrar) needs no certificate of our own: without
    // one the transport only opens connections, and takes requests on those it opened.
    this.tls = new StreamTransport({
      host: o.host,
      receiver: this.receiver,
      clock: o.clock,
      transport: 'TLS',
      port: o.tls?.port ?? 0,
      ...(o.tls ? { tls: { cert: o.tls.cert, key: o.tls.key } } : {}),
      ...(o.tlsClient ? { tlsClient: o.tlsClient } : {}),
      ...(o.idleMs ? { idleMs: o.idleMs } : {}),
      ...(o.maxWriteQueueBytes ? { maxWriteQueueBytes: o.maxWriteQueueBytes } : {}),
    });
    if (o.tls) {
      try {
        ports.tls = (await this.tls.listen()).port;
      } catch (err) {
        // A bad certificate or a taken TLS port: release UDP and TCP too, or the failed start
        // would keep the process alive holding them.
        this.tls = undefined;
        await this.close();
        throw err;
      }
    }
    return ports;
  }

  /**
   * Sends on the transport the destination names; false when it cannot (no such listener, a
   * response's connection gone). `onError` hears of a failure found later, such as a TCP or TLS
   * connection that could not be opened: transactions end on it at once (RFC 3261 17.1.4).
   */
  send(message: SipMessage, to: Destination, onError?: (error: Error) => void): boolean {
    if (to.transport === 'UDP') return this.udp?.send(message, to, onError) ?? false;
    if (to.transport === 'TCP') return this.tcp?.send(message, to, onError) ?? false;
    if (to.transport === 'TLS') return this.tls?.send(message, to, onError) ?? false;
    return false;
  }

  /** The TCP or TLS connection requests to `to` would go out on now, if one is open. */
  connectionTo(to: Destination): string | undefined {
    const t = to.transport === 'TCP' ? this.tcp : to.transport === 'TLS' ? this.tls : undefined;
    return t?.connectionTo(to.host, to.port);
  }

  /** A CRLF keep-alive on the TCP or TLS connection to `to`; false when none is open (or UDP). */
  keepAlive(to: Destination): boolean {
    const t = to.transport === 'TCP' ? this.tcp : to.transport === 'TLS' ? this.tls : undefined;
    return t?.keepAlive(to.host, to.port) ?? false;
  }

  private reply(tx: ServerTransaction, status: number, reason: string, headers: HeaderInit[] = []): void {
    const server: HeaderInit[] = this.options.serverName ? [['Server', this.options.serverName]] : [];
    tx.respond(
      createReply(tx.request, status, reason, { toTag: this.newTag(), headers: [...headers, ...server] }),
    );
  }

  /** Routes requests inside a dialog (Call-ID and both tags) to its owner instead of onRequest. */
  registerDialog(id: DialogId, handler: DialogHandler): () => void {
    const key = dialogKey(id);
    this.dialogs.set(key, handler);
    return () => {
      if (this.dialogs.get(key) === handler) this.dialogs.delete(key);
    };
  }

  /** Tells the owner of an INVITE that it was cancelled (after the stack sent 200 and 487). */
  onCancel(invite: ServerTransaction, fn: () => void): () => void {
    this.cancelWatchers.set(invite, fn);
    return () => void this.cancelWatchers.delete(invite);
  }

  private dispatch(req: SipRequest, tx: ServerTransaction | undefined, source: Source): void {
    if (req.to.tag !== undefined) {
      const owner = this.dialogs.get(dialogKey(dialogIdOf(req, false)));
      if (owner) return owner(req, tx, source);
    }
    if (!tx) return; // an ACK for a 2xx outside any dialog we know: nothing to do
    if (req.method === 'CANCEL') {
      const invite = this.transactions.inviteFor(req);
      if (!invite) return this.reply(tx, 481, 'Call/Transaction Does Not Exist');
      this.reply(tx, 200, 'OK');
      if (invite.state !== 'Proceeding') return;
      this.reply(invite, 487, 'Request Terminated');
      const watcher = this.cancelWatchers.get(invite);
      this.cancelWatchers.delete(invite);
      watcher?.();
      return;
    }
    if (req.method === 'INVITE' && req.to.tag === undefined && this.options.admission) {
      const refusal = this.options.admission.admit();
      if (refusal) {
        emitTelemetry({ kind: 'call.refused', reason: refusal.reason });
        return this.reply(tx, 503, 'Service Unavailable', [['Retry-After', String(refusal.retryAfter)]]);
      }
    }
    if (this.options.onRequest?.(req, tx, source)) return;
    if (req.method === 'OPTIONS') {
      return this.reply(tx, 200, 'OK', [
        ['Allow', this.allow.join(', ')],
        ['Accept', 'application/sdp'],
        ['Supported', (this.options.policy ?? DEFAULT_POLICY).supported.join(', ')],
      ]);
    }
    if (!KNOWN.includes(req.method))
      return this.reply(tx, 501, 'Not Implemented', [['Allow', this.allow.join(', ')]]);
    if (!this.allow.includes(req.method))
      return this.reply(tx, 405, 'Method Not Allowed', [['Allow', this.allow.join(', ')]]);
    if (IN_DIALOG.includes(req.method)) return this.reply(tx, 481, 'Call/Transaction Does Not Exist');
    this.reply(tx, 480, 'Temporarily Unavailable');
  }

  /** Closes the sockets and ends every transaction, so nothing of the stack's keeps a timer. */
  async close(): Promise<void> {
    await Promise.all([this.udp?.close(), this.tcp?.close(), this.tls?.close()]);
    this.transactions.close();
  }
}
