// SIP over TCP and TLS (RFC 3261 18.3): Content-Length framing per connection, responses back on
// the connection the request came in on, outbound connections reused per peer, idle connections
// closed on the injected clock, RFC 5626 CRLF keep-alives answered. What we write to a peer that
// has stopped reading queues in the socket once the kernel's buffers are full; past
// maxWriteQueueBytes the connection is closed rather than buffering without bound.
import { createServer as createTcpServer, isIP, connect as tcpConnect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { createServer as createTlsServer, connect as tlsConnect } from 'node:tls';
import type { TlsOptions, ConnectionOptions } from 'node:tls';
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import { emitTelemetry } from '../../../shared/telemetry.js';
import { buildErrorResponse } from '../message/error-response.js';
import { SipParseError } from '../message/errors.js';
import { StreamFramer } from '../message/framer.js';
import type { SipLimits } from '../message/limits.js';
import { serialize } from '../message/serialize.js';
import type { SipMessage } from '../message/types.js';
import type { Destination } from '../transaction/types.js';
import type { Receiver } from './receiver.js';

export interface StreamTransportOptions {
  readonly transport: 'TCP' | 'TLS';
  readonly host: string;
  readonly port: number;
  readonly receiver: Receiver;
  readonly clock: Clock;
  /** Close a connection after this long without traffic either way. Default 5 minutes. */
  readonly idleMs?: number;
  readonly limits?: Partial<SipLimits>;
  /** Server certificate and key (TLS). */
  readonly tls?: TlsOptions;
  /** Options for outbound TLS connections (CA, servername, rejectUnauthorized). */
  readonly tlsClient?: ConnectionOptions;
  /** Inbound connections held at most; more are refused by the listener. Default 10,000. */
  readonly maxConnections?: number;
  /**
   * Bytes queued at most for one connection beyond what the kernel took (a peer that stopped
   * reading); a write past it closes the connection. Default DEFAULT_MAX_WRITE_QUEUE_BYTES.
   */
  readonly maxWriteQueueBytes?: number;
}

/** 1 MiB: some 1,000 typical SIP messages queued for one peer that is not reading. */
export const DEFAULT_MAX_WRITE_QUEUE_BYTES = 1024 * 1024;

interface Connection {
  readonly id: string;
  readonly socket: Socket;
  readonly framer: StreamFramer;
  readonly peer: string;
  idle?: TimerHandle;
  /**
   * An outbound connection not yet open (TCP connect, TLS handshake): whoever wrote on it hears
   * if it never opens (RFC 3261 17.1.4). Undefined once open, and for inbound connections.
   */
  pending?: Array<(error: Error) => void>;
}

let nextId = 0;

export class StreamTransport {
  private server?: Server;
  private readonly byId = new Map<string, Connection>();
  private readonly byPeer = new Map<string, Connection>();

  constructor(private readonly options: StreamTransportOptions) {}

  /** Open connections, for tests and metrics. */
  get connections(): number {
    return this.byId.size;
  }

  /** Connections closed because their peer stopped reading and the write queue filled. */
  overflows = 0;

  /**
   * Writes on a connection unless its queue (what the kernel has not taken yet) is already full:
   * then the connection is destroyed and the bytes dropped (false). The check is before the write,
   * so the queue never holds more than the limit plus one message.
   */
  private write(conn: Connection, bytes: Uint8Array | string): boolean {
    const max = this.options.maxWriteQueueBytes ?? DEFAULT_MAX_WRITE_QUEUE_BYTES;
    if (conn.socket.writableLength > max) {
      this.overflows++;
      emitTelemetry({ kind: 'sip.write_queue_full', transport: this.options.transport });
      conn.socket.destroy();
      return false;
    }
    conn.socket.write(bytes);
    return true;
  }

  listen(): Promise<{ address: string; port: number }> {
    const onSocket = (socket: Socket): void => void this.adopt(socket);
    const server =
      this.options.transport === 'TLS'
        ? createTlsServer(this.options.tls ?? {}, onSocket)
        : createTcpServer(onSocket);
    this.server = server;
    server.maxConnections = this.options.maxConnections ?? 10_000;
    // A failed TLS handshake must not take the listener down.
    server.on('tlsClientError', () => undefined);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        const a = server.address();
        if (a === null || typeof a === 'string') return reject(new Error('no address'));
        resolve({ address: a.address, port: a.port });
      });
    });
  }

  private adopt(socket: Socket, peerKey?: string): Connection {
    const peer = peerKey ?? `${socket.remoteAddress}:${socket.remotePort}`;
    const conn: Connection = {
      id: `${this.options.transport}-${++nextId}`,
      socket,
      framer: new StreamFramer(this.options.limits),
      peer,
    };
    this.byId.set(conn.id, conn);
    if (!this.byPeer.has(peer)) this.byPeer.set(peer, conn);
    this.touch(conn);
    socket.on('data', (chunk: Buffer) => this.onData(conn, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.forget(conn));
    return conn;
  }

  private forget(conn: Connection): void {
    if (conn.idle) this.options.clock.clearTimeout(conn.idle);
    this.byId.delete(conn.id);
    if (this.byPeer.get(conn.peer) === conn) this.byPeer.delete(conn.peer);
  }

  private touch(conn: Connection): void {
    if (conn.idle) this.options.clock.clearTimeout(conn.idle);
    conn.idle = this.options.clock.setTimeout(() => conn.socket.destroy(), this.options.idleMs ?? 300_000);
  }

  private onData(conn: Connection, chunk: Buffer): void {
    this.touch(conn);
    let frames;
    try {
      frames = conn.framer.push(chunk);
    } catch (e) {
      if (!(e instanceof SipParseError)) throw e;
      // The stream position is lost: answer if a response is possible, then hang up.
      this.options.receiver.stats.received++;
      const reply = e.action === 'respond' ? buildErrorResponse(e, e.status, e.reason) : null;
      if (reply) this.options.receiver.stats.answered++;
      else this.options.receiver.stats.discarded++;
      if (reply) conn.socket.end(reply);
      else conn.socket.destroy();
      return;
    }
    for (const frame of frames) {
      if (frame.kind === 'keepalive') {
        this.write(conn, '\r\n');
        continue;
      }
      const source = {
        transport: this.options.transport,
        address: conn.socket.remoteAddress ?? '',
        port: conn.socket.remotePort ?? 0,
        connectionId: conn.id,
      };
      if (!this.options.receiver.admit(source)) continue;
      this.options.receiver.handle(frame.bytes, source, (bytes) => void this.write(conn, bytes));
    }
  }

  private connect(host: string, port: number): Connection {
    const tls = this.options.transport === 'TLS';
    const socket = tls
      ? // SNI carries names only (RFC 6066 3); an IP literal gets none.
        tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...this.options.tlsClient })
      : tcpConnect({ host, port });
    // Writes before the handshake are queued by the socket itself.
    const conn = this.adopt(socket, `${host}:${port}`);
    const waiting: Array<(error: Error) => void> = [];
    conn.pending = waiting;
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      conn.pending = undefined;
    });
    // 'error' (refused, unreachable, handshake or certificate failure, DNS) comes before 'close';
    // a close without one still means the connection never opened.
    let failure: Error | undefined;
    socket.once('error', (e: Error) => (failure ??= e));
    socket.once('close', () => {
      if (conn.pending !== waiting) return;
      conn.pending = undefined;
      const error =
        failure ??
        new Error(`${this.options.transport} connection to ${host}:${port} closed before it opened`);
      for (const fn of waiting) fn(error);
    });
    return conn;
  }

  /**
   * Sends on the request's own connection, else on a connection to the peer, opened if needed.
   * `onError` hears, once, when the connection the bytes were queued on never opens.
   */
  sendRaw(bytes: Uint8Array, to: Destination, onError?: (error: Error) => void): boolean {
    let conn = to.connectionId !== undefined ? this.byId.get(to.connectionId) : undefined;
    conn ??= this.byPeer.get(`${to.host}:${to.port}`);
    if (!conn && to.connectionId !== undefined) return false;
    conn ??= this.connect(to.host, to.port);
    if (conn.socket.destroyed) return false;
    if (onError && conn.pending) conn.pending.push(onError);
    this.touch(conn);
    return this.write(conn, bytes);
  }

  /**
   * A response whose connection has closed is lost (false: RFC 3261 18.2.2 leaves it to the
   * transaction). A request given a connection (an in-dialog request sent on the connection its
   * dialog came in on, for callers that cannot accept connections) goes to its host and port when
   * that connection has closed meanwhile.
   */
  send(message: SipMessage, to: Destination, onError?: (error: Error) => void): boolean {
    if (message.kind === 'request' && to.connectionId !== undefined && !this.byId.has(to.connectionId)) {
      return this.sendRaw(
        serialize(message),
        { transport: to.transport, host: to.host, port: to.port, reliable: to.reliable },
        onError,
      );
    }
    return this.sendRaw(serialize(message), to, onError);
  }

  /** The open (or opening) connection to a peer that requests to it would reuse, if any. */
  connectionTo(host: string, port: number): string | undefined {
    const conn = this.byPeer.get(`${host}:${port}`);
    return conn && !conn.socket.destroyed ? conn.id : undefined;
  }

  /**
   * An RFC 5626 4.4.1 CRLF keep-alive on the connection to a peer, so a NAT on the way keeps it
   * (and the peer can reach us on it); false when there is no such connection any more.
   */
  keepAlive(host: string, port: number): boolean {
    const conn = this.byPeer.get(`${host}:${port}`);
    if (!conn || conn.socket.destroyed) return false;
    this.touch(conn);
    return this.write(conn, '\r\n\r\n');
  }

  async close(): Promise<void> {
    for (const c of [...this.byId.values()]) c.socket.destroy();
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
