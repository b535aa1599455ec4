// An in-memory network for SIP tests on a FakeClock: SipStacks put on the wire get an address and
// send through it instead of sockets; what they send is serialized, queued and handed to the
// receiver at the destination (parsed there as a datagram would be) when the test flushes. A
// scripted peer at an address sees each message parsed and may answer, so a test plays a carrier
// line by line (a 422, a 481 to an UPDATE) without a socket or a wall-clock wait.
import { serialize } from '../message/serialize.js';
import { parseMessage } from '../message/parse.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/types.js';
import type { SipStack } from '../stack.js';
import type { Destination } from '../transaction/types.js';

interface Packet {
  bytes: Buffer;
  from: { host: string; port: number };
  to: { host: string; port: number };
}

/** What a scripted peer can do with a message it got. */
export interface PeerContext {
  /** Sends `message` from the peer to `to` (default: where the message came from). */
  send(message: SipMessage, to?: { host: string; port: number }): void;
}

export type ScriptedPeer = (message: SipMessage, ctx: PeerContext) => void;

const key = (a: { host: string; port: number }) => `${a.host}:${a.port}`;

export class FakeWire {
  private readonly queue: Packet[] = [];
  private readonly stacks = new Map<string, SipStack>();
  private readonly peers = new Map<string, ScriptedPeer>();
  /** Every message that crossed the wire, parsed, in order (tests read what was sent). */
  readonly seen: { from: string; to: string; message: SipMessage }[] = [];

  /** Puts `stack` on the wire at host:port; it sends nothing through sockets from now on. */
  attach(stack: SipStack, host: string, port: number): void {
    this.stacks.set(key({ host, port }), stack);
    (stack as { send: SipStack['send'] }).send = (message: SipMessage, to: Destination) => {
      this.post(message, { host, port }, to);
      return true;
    };
  }

  /** A scripted peer at host:port. */
  peer(host: string, port: number, script: ScriptedPeer): void {
    this.peers.set(key({ host, port }), script);
  }

  /** Queues `message` from `from` to `to`. */
  post(message: SipMessage, from: { host: string; port: number }, to: { host: string; port: number }): void {
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

  private deliver(p: Packet): void {
    const message = parseMessage(p.bytes);
    this.seen.push({ from: key(p.from), to: key(p.to), message });
    const stack = this.stacks.get(key(p.to));
    if (stack) {
      const source = { transport: 'UDP' as const, address: p.from.host, port: p.from.port };
      stack.receiver.handle(p.bytes, source, (bytes) => this.queue.push({ bytes, from: p.to, to: p.from }));
      return;
    }
    this.peers.get(key(p.to))?.(message, {
      send: (m, to) => this.post(m, p.to, to ?? p.from),
    });
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
}
