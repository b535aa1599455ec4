// Test-only support for the SIP stack: a fake network and fake transports, in memory, for tests on a
// FakeClock. One wire serves two kinds of test:
// - a network: SipStacks attached at addresses and scripted peers at others exchange packets that
//   are serialized, queued and handed to the receiver at the destination (parsed there as a
//   datagram would be) when the test flushes, so a test plays a carrier line by line (a 422, a 481
//   to an UPDATE) without a socket or a wall-clock wait;
// - a packet from anywhere: an attached stack's `deliver` hands its receiver a message at once, as
//   if it had arrived from a source of the test's choosing (any address, port, transport, a TCP or
//   TLS connection), and everything the stack sends is captured in its `sent`, with the Destination
//   the stack chose. A test reaches what no real peer on loopback can be: a carrier at 198.51.100.7
//   whose Via claims 203.0.113.10.
import { FakeClock } from '../../src/shared/clock.js';
import { serialize } from '../../src/telephony/sip/message/serialize.js';
import { parseMessage } from '../../src/telephony/sip/message/parse.js';
import type { SipMessage, SipRequest, SipResponse } from '../../src/telephony/sip/message/types.js';
import { SipStack, type SipStackOptions } from '../../src/telephony/sip/stack.js';
import type { Destination } from '../../src/telephony/sip/transaction/types.js';
import type { Source } from '../../src/telephony/sip/transport/routing.js';

interface Address {
  host: string;
  port: number;
}

interface Packet {
  bytes: Buffer;
  from: Address;
  to: Address;
}

/** What a scripted peer can do with a message it got. */
export interface PeerContext {
  /** Sends `message` from the peer to `to` (default: where the message came from). */
  send(message: SipMessage, to?: Address): void;
}

export type ScriptedPeer = (message: SipMessage, ctx: PeerContext) => void;

/** A stack on the wire: what it sent, and packets handed to it from any source. */
export interface WiredStack {
  readonly stack: SipStack;
  /** The wire the stack is on (scripted peers, flush). */
  readonly wire: FakeWire;
  /**
   * Every message the stack sent (`stack.send`), as sent, with where it was sent, in order. The
   * receiver's stateless error replies (to what did not parse or validate) are not listed; they go
   * back over the wire to the packet's source.
   */
  readonly sent: { message: SipMessage; to: Destination }[];
  /** Feeds raw text (or a built message) to the stack's receiver at once, as a packet from `source`. */
  deliver(message: string | SipMessage, source: Source): void;
  /** The responses the stack sent. */
  responses(): { message: SipResponse; to: Destination }[];
  /** The requests the stack sent (with this method, if given). */
  requests(method?: string): { message: SipRequest; to: Destination }[];
}

const key = (a: Address) => `${a.host}:${a.port}`;

export class FakeWire {
  private readonly queue: Packet[] = [];
  private readonly stacks = new Map<string, SipStack>();
  private readonly peers = new Map<string, ScriptedPeer>();
  /**
   * Every message that crossed the wire (delivered on flush), parsed, in order: tests read what was
   * sent. A packet a stack's `deliver` hands in at once is not on it.
   */
  readonly seen: { from: string; to: string; message: SipMessage }[] = [];

  /**
   * Puts `stack` on the wire at host:port; it sends nothing through sockets from now on (sockets it
   * has stay open, and still receive).
   */
  attach(stack: SipStack, host: string, port: number): WiredStack {
    const at = { host, port };
    this.stacks.set(key(at), stack);
    const sent: WiredStack['sent'] = [];
    stack.send = (message: SipMessage, to: Destination) => {
      sent.push({ message, to });
      this.post(message, at, to);
      return true;
    };
    return {
      stack,
      wire: this,
      sent,
      deliver: (message, source) =>
        this.receive(
          stack,
          at,
          typeof message === 'string' ? Buffer.from(message) : serialize(message),
          source,
        ),
      responses: () =>
        sent.filter((s) => s.message.kind === 'response') as ReturnType<WiredStack['responses']>,
      requests: (method) =>
        sent.filter(
          (s) => s.message.kind === 'request' && (method === undefined || s.message.method === method),
        ) as ReturnType<WiredStack['requests']>,
    };
  }

  /** A scripted peer at host:port. */
  peer(host: string, port: number, script: ScriptedPeer): void {
    this.peers.set(key({ host, port }), script);
  }

  /** Queues `message` from `from` to `to`. */
  post(message: SipMessage, from: Address, to: Address): void {
    this.queue.push({ bytes: serialize(message), from, to: { host: to.host, port: to.port } });
  }

  /** Delivers until nothing is left, letting promise chains run between deliveries. */
  async flush(): Promise<void> {
    for (let quiet = 0; quiet < 3;) {
      const packet = this.queue.shift();
      if (packet) {
        quiet = 0;
        this.deliver(packet);
      } else quiet++;
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Requests that crossed the wire with this method, in order. */
  requests(method: string): SipRequest[] {
    return this.seen
      .map((s) => s.message)
      .filter((m): m is SipRequest => m.kind === 'request' && m.method === method);
  }

  /** Responses that crossed the wire, in order. */
  responses(): SipResponse[] {
    return this.seen.map((s) => s.message).filter((m): m is SipResponse => m.kind === 'response');
  }

  private deliver(p: Packet): void {
    const message = parseMessage(p.bytes);
    this.seen.push({ from: key(p.from), to: key(p.to), message });
    const stack = this.stacks.get(key(p.to));
    if (stack) {
      this.receive(stack, p.to, p.bytes, { transport: 'UDP', address: p.from.host, port: p.from.port });
      return;
    }
    this.peers.get(key(p.to))?.(message, {
      send: (m, to) => this.post(m, p.to, to ?? p.from),
    });
  }

  /** Hands `bytes` to the receiver of the stack at `at`; its error replies go back to the source. */
  private receive(stack: SipStack, at: Address, bytes: Buffer, source: Source): void {
    stack.receiver.handle(bytes, source, (reply) =>
      this.queue.push({ bytes: reply, from: at, to: { host: source.address, port: source.port } }),
    );
  }
}

/** A stack without sockets on a FakeClock, alone on a wire: the test plays its transports. */
export function wiredStack(options: Partial<SipStackOptions> = {}): WiredStack {
  const stack = new SipStack({ clock: new FakeClock(), host: '192.0.2.1', ...options });
  return new FakeWire().attach(stack, options.host ?? '192.0.2.1', 5060);
}
