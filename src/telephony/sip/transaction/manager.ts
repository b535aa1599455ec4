// The transaction layer's front door: matches incoming messages to transactions (RFC 3261 17.1.3,
// 17.2.3), creates server transactions for new requests, and starts client transactions.
import type { Clock } from '../../../shared/clock.js';
import { createReply } from '../message/build.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import type { Source } from '../transport/routing.js';
import type { ClientHandlers, ClientTransaction } from './client.js';
import { ClientInviteTransaction, ClientNonInviteTransaction } from './client.js';
import { clientKeyOfResponse, serverKey } from './keys.js';
import type { ServerTransaction } from './server.js';
import { ServerInviteTransaction, ServerNonInviteTransaction } from './server.js';
import type { Destination, Sender, TimerValues, Transaction, TransactionContext } from './types.js';
import { DEFAULT_TIMERS } from './types.js';

export interface TransactionManagerOptions {
  readonly clock: Clock;
  readonly send: Sender;
  readonly timers?: Partial<TimerValues>;
  /**
   * A new request for the TU with its server transaction (ACKs for 2xx come without one) and the
   * packet's real source: the address, port and transport it arrived from, whatever its Via says.
   */
  readonly onRequest: (req: SipRequest, tx: ServerTransaction | undefined, source: Source) => void;
  /** A response no transaction claims (2xx retransmissions after the INVITE transaction ended). */
  readonly onStrayResponse?: (res: SipResponse, source: Destination) => void;
  /** Answer INVITEs with 100 Trying at once (17.2.1 asks for it within 200 ms). Default true. */
  readonly autoTrying?: boolean;
}

export class TransactionManager {
  private readonly clients = new Map<string, ClientTransaction>();
  private readonly servers = new Map<string, ServerTransaction>();
  private readonly ctx: TransactionContext;

  constructor(private readonly options: TransactionManagerOptions) {
    this.ctx = {
      clock: options.clock,
      send: options.send,
      timers: { ...DEFAULT_TIMERS, ...options.timers },
      onTerminated: (tx: Transaction) => {
        if (this.clients.get(tx.key) === tx) this.clients.delete(tx.key);
        if (this.servers.get(tx.key) === tx) this.servers.delete(tx.key);
      },
    };
  }

  /** Live transactions (client, server), for tests and metrics. */
  get size(): { client: number; server: number } {
    return { client: this.clients.size, server: this.servers.size };
  }

  /** Sends a request in a new client transaction. ACK never has one: send it with `send`. */
  sendRequest(req: SipRequest, destination: Destination, handlers: ClientHandlers): ClientTransaction {
    if (req.method === 'ACK') throw new Error('ACK is sent outside transactions');
    const tx =
      req.method === 'INVITE'
        ? new ClientInviteTransaction(this.ctx, destination, req, handlers)
        : new ClientNonInviteTransaction(this.ctx, destination, req, handlers);
    this.clients.set(tx.key, tx);
    tx.start();
    return tx;
  }

  receiveResponse(res: SipResponse, source: Destination): void {
    const key = clientKeyOfResponse(res);
    const tx = key === undefined ? undefined : this.clients.get(key);
    if (tx) tx.receive(res);
    else this.options.onStrayResponse?.(res, source);
  }

  /**
   * A request from the transport: `responseTo` is where its responses go (RFC 3261 18.2.2, the
   * transaction's destination), `source` where the packet came from (handed to the TU).
   */
  receiveRequest(req: SipRequest, responseTo: Destination, source: Source): void {
    const existing = this.servers.get(serverKey(req));
    if (existing) {
      existing.receive(req);
      return;
    }
    if (req.method === 'ACK') {
      this.options.onRequest(req, undefined, source);
      return;
    }
    const tx =
      req.method === 'INVITE'
        ? new ServerInviteTransaction(this.ctx, responseTo, req)
        : new ServerNonInviteTransaction(this.ctx, responseTo, req);
    this.servers.set(tx.key, tx);
    if (req.method === 'INVITE' && this.options.autoTrying !== false)
      tx.respond(createReply(req, 100, 'Trying'));
    if (!tx.terminated) this.options.onRequest(req, tx, source);
  }

  /**
   * Ends every transaction at once (the stack is closing): no timer of theirs is left to keep the
   * process up, as an answered INVITE's timer L would for 32 s.
   */
  close(): void {
    for (const tx of [...this.clients.values(), ...this.servers.values()]) tx.close();
  }

  /** The INVITE server transaction a CANCEL refers to (same branch and sent-by, 9.2). */
  inviteFor(cancel: SipRequest): ServerInviteTransaction | undefined {
    const tx = this.servers.get(serverKey(cancel, 'INVITE'));
    return tx instanceof ServerInviteTransaction ? tx : undefined;
  }
}
