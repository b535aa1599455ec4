// A SIP stack whose transports the test plays: `deliver` hands the receiver a message as if it had
// arrived from a source of the test's choosing (any address, port, transport or connection), and
// everything the stack sends is captured in `sent` instead of leaving a socket. Lets tests reach
// what no real peer on loopback can be: a carrier at 198.51.100.7 whose Via claims 203.0.113.10.
import { FakeClock } from '../../src/shared/clock.js';
import type { SipMessage, SipRequest, SipResponse } from '../../src/telephony/sip/message/types.js';
import { serialize } from '../../src/telephony/sip/message/serialize.js';
import { SipStack, type SipStackOptions } from '../../src/telephony/sip/stack.js';
import type { Destination } from '../../src/telephony/sip/transaction/types.js';
import type { Source } from '../../src/telephony/sip/transport/routing.js';

export interface Wire {
  readonly stack: SipStack;
  readonly sent: { message: SipMessage; to: Destination }[];
  /** Feeds raw text (or a built message) to the stack as a packet from `source`. */
  deliver(message: string | SipMessage, source: Source): void;
  responses(): { message: SipResponse; to: Destination }[];
  requests(method?: string): { message: SipRequest; to: Destination }[];
}

/** Takes over the sending side of `stack` (its sockets, if any, stay open but unused for sends). */
export function attachWire(stack: SipStack): Wire {
  const sent: Wire['sent'] = [];
  stack.send = (message, to) => {
    sent.push({ message, to });
    return true;
  };
  return {
    stack,
    sent,
    deliver: (message, source) =>
      stack.receiver.handle(
        typeof message === 'string' ? Buffer.from(message) : serialize(message),
        source,
        () => undefined,
      ),
    responses: () => sent.filter((s) => s.message.kind === 'response') as ReturnType<Wire['responses']>,
    requests: (method) =>
      sent.filter(
        (s) => s.message.kind === 'request' && (method === undefined || s.message.method === method),
      ) as ReturnType<Wire['requests']>,
  };
}

/** A stack without sockets on a FakeClock, its transports played by the test. */
export function fakeWire(options: Partial<SipStackOptions> = {}): Wire {
  return attachWire(new SipStack({ clock: new FakeClock(), host: '192.0.2.1', ...options }));
}
