// The SIP benchmark's side of the calls (sip-signalling.ts, sip-media.ts): our stack on loopback,
// with a UAS leg for every INVITE, handed to the benchmark to answer.
import type { SipRequest } from '../src/telephony/sip/message/types.js';
import { systemClock } from '../src/shared/clock.js';
import { SipStack } from '../src/telephony/sip/stack.js';
import { UasLeg } from '../src/telephony/sip/uas-leg.js';

/** Listens on a free UDP port of 127.0.0.1; every INVITE gets a leg (ids `${idPrefix}1`, …). */
export async function answeringStack(
  idPrefix: string,
  onInvite: (leg: UasLeg, req: SipRequest) => void,
): Promise<{ stack: SipStack; port: number }> {
  let n = 0;
  let port = 0;
  const stack = new SipStack({
    clock: systemClock,
    host: '127.0.0.1',
    port: 0,
    throttle: { ratePerSecond: 1e6, burst: 1e6 },
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock: systemClock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `${idPrefix}${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
        },
        req,
        tx,
        { cancelled: () => undefined, bye: () => undefined, ackTimeout: () => undefined },
      );
      onInvite(leg, req);
      return true;
    },
  });
  port = (await stack.listen()).udp!;
  return { stack, port };
}
