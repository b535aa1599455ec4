// SIP over UDP (RFC 3261 18): one datagram is one message; bytes past Content-Length are ignored.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { serialize } from '../message/serialize.js';
import type { SipMessage } from '../message/types.js';
import type { Destination } from '../transaction/types.js';
import type { Receiver } from './receiver.js';

export interface UdpTransportOptions {
  readonly host: string;
  readonly port: number;
  readonly receiver: Receiver;
}

export class UdpTransport {
  private socket?: Socket;

  constructor(private readonly options: UdpTransportOptions) {}

  /** Binds the socket; resolves with the bound address (port 0 picks a free one). */
  listen(): Promise<{ address: string; port: number }> {
    const socket = createSocket(isIPv6(this.options.host) ? 'udp6' : 'udp4');
    this.socket = socket;
    socket.on('message', (msg, rinfo) => {
      const source = { transport: 'UDP' as const, address: rinfo.address, port: rinfo.port };
      if (!this.options.receiver.admit(source)) return;
      this.options.receiver.handle(msg, source, (bytes, to) => this.sendRaw(bytes, to));
    });
    // A send to an unreachable port can surface as a socket error; the socket stays usable.
    socket.on('error', () => undefined);
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port, this.options.host, () => {
        socket.off('error', reject);
        const a = socket.address();
        resolve({ address: a.address, port: a.port });
      });
    });
  }

  /**
   * Queues a datagram. `onError` hears of what the socket reports afterwards (a host name that does
   * not resolve, no route, a datagram too large); an ICMP port unreachable is never reported to
   * an unconnected socket, so a silent peer still takes the transaction's timeout.
   */
  sendRaw(
    bytes: Uint8Array,
    to: Pick<Destination, 'host' | 'port'>,
    onError?: (error: Error) => void,
  ): boolean {
    if (!this.socket) return false;
    if (onError) this.socket.send(bytes, to.port, to.host, (err) => err && onError(err));
    else this.socket.send(bytes, to.port, to.host);
    return true;
  }

  /** The transaction layer's Sender for this transport. */
  send(message: SipMessage, to: Destination, onError?: (error: Error) => void): boolean {
    return this.sendRaw(serialize(message), to, onError);
  }

  close(): Promise<void> {
    const s = this.socket;
    this.socket = undefined;
    return new Promise((resolve) => (s ? s.close(() => resolve()) : resolve()));
  }
}
