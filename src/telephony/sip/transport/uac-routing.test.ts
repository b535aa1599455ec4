// UacLeg's outbound routing between stacks on loopback: RFC 3263 destinations from an injected
// resolver (fallback after a timeout or a 503, DNS failure, CANCEL while resolving) and RFC 3261
// 18.1.1 (a large INVITE over TCP, back to UDP when TCP is not there), and transport errors that end
// the INVITE at once (a refused connection). Our side runs on a fake clock.
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { createReply } from '../message/build.js';
import type { SipRequest } from '../message/types.js';
import { SipStack } from '../stack.js';
import type { Destination } from '../transaction/types.js';
import { UacLeg, type UacLegOptions } from '../uac-leg.js';
import type { ResolveTarget } from './resolve.js';

const stacks: SipStack[] = [];

/** A TCP port on loopback that nothing listens on (bound, then released). */
async function closedTcpPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        resolve();
      }
    }, 2);
  });
}

interface FarEnd {
  readonly port: number;
  readonly stack: SipStack;
  readonly invites: Array<{ req: SipRequest; transport: string }>;
}

/** A UAS answering every INVITE with `status` (200 with a Contact and a dialog's To tag). */
async function farEnd(status: number): Promise<FarEnd> {
  const invites: FarEnd['invites'] = [];
  let port = 0;
  const stack = new SipStack({
    clock: new FakeClock(),
    host: '127.0.0.1',
    port: 0,
    onRequest: (req, tx, source) => {
      if (req.method !== 'INVITE') return false;
      invites.push({ req, transport: source.transport });
      const reason = status === 200 ? 'OK' : 'Service Unavailable';
      tx.respond(
        createReply(req, status, reason, {
          toTag: 'far',
          headers: [['Contact', `<sip:far@127.0.0.1:${port}>`]],
        }),
      );
      return true;
    },
  });
  stacks.push(stack);
  port = (await stack.listen()).udp!;
  return { port, stack, invites };
}

async function nearEnd(extra: Partial<UacLegOptions>) {
  let n = 0;
  const clock = new FakeClock();
  const stack = new SipStack({ clock, host: '127.0.0.1', port: 0 });
  stacks.push(stack);
  const port = (await stack.listen()).udp!;
  const leg = new UacLeg({
    stack,
    localHost: '127.0.0.1',
    localPort: port,
    newId: () => `id${++n}`,
    ...extra,
  });
  const events: string[] = [];
  const errors: Error[] = [];
  const sink = {
    provisional: (s: number) => events.push(`${s}`),
    final: (s: number) => events.push(`final ${s}`),
    bye: () => events.push('bye'),
    transportError: (e?: Error) => {
      events.push('error');
      if (e) errors.push(e);
    },
  };
  return { clock, leg, events, errors, sink };
}

const udp = (port: number): Destination => ({ transport: 'UDP', host: '127.0.0.1', port, reliable: false });
const byName = {
  uri: 'sip:+15550100@trunk.example.net',
  host: 'trunk.example.net',
  port: null,
  transport: 'udp' as const,
};
const opts = { from: '+15550199', auth: { username: 'acct', password: 'pw' }, callId: 'call-1' };

describe('UacLeg with an RFC 3263 resolver', () => {
  it('resolves a host name and moves on to the next destination after timer B, with a new branch', async () => {
    const far = await farEnd(200);
    const asked: ResolveTarget[] = [];
    // Nobody listens on port 9 (discard): the first destination never answers.
    const near = await nearEnd({
      resolve: (t) => {
        asked.push(t);
        return Promise.resolve([udp(9), udp(far.port)]);
      },
    });
    near.leg.invite(byName, opts, near.sink);
    expect(asked).toEqual([{ host: 'trunk.example.net', port: null, transport: 'udp', secure: false }]);
    await new Promise((r) => setTimeout(r, 20));
    expect(far.invites).toHaveLength(0);
    near.clock.advance(32_000); // timer B (64*T1) on the first destination
    await until(() => near.events.includes('final 200'));
    expect(far.invites).toHaveLength(1);
    // The first attempt's branch was id1 (then From tag, Call-ID): the resend is a new transaction.
    expect(far.invites[0].req.via[0].branch).toBe('z9hG4bKid4');
    expect(near.events).toEqual(['100', 'final 200']);
  });

  it('tries the next destination after a 503, but reports the last 503 when none is left', async () => {
    const busy = await farEnd(503);
    const ok = await farEnd(200);
    const near = await nearEnd({ resolve: () => Promise.resolve([udp(busy.port), udp(ok.port)]) });
    near.leg.invite(byName, opts, near.sink);
    await until(() => near.events.some((e) => e.startsWith('final')));
    // Each far end's 100 Trying comes through; one final only.
    expect(near.events.filter((e) => e.startsWith('final'))).toEqual(['final 200']);
    expect(busy.invites).toHaveLength(1);
    expect(ok.invites).toHaveLength(1);
    expect(ok.invites[0].req.via[0].branch).not.toBe(busy.invites[0].req.via[0].branch);
    expect(ok.invites[0].req.cseq).toEqual(busy.invites[0].req.cseq);

    const alone = await nearEnd({ resolve: () => Promise.resolve([udp(busy.port)]) });
    alone.leg.invite(byName, opts, alone.sink);
    await until(() => alone.events.some((e) => e.startsWith('final')));
    expect(alone.events.filter((e) => e.startsWith('final'))).toEqual(['final 503']);
  });

  it('reports a DNS failure as a transport error, and a CANCEL during the lookup as 487 with nothing sent', async () => {
    const failing = await nearEnd({
      resolve: () => Promise.reject(new Error('no SIP destination for trunk')),
    });
    failing.leg.invite(byName, opts, failing.sink);
    await until(() => failing.events.length > 0);
    expect(failing.events).toEqual(['error']);
    expect(failing.errors[0].message).toMatch(/no SIP destination/);

    const far = await farEnd(200);
    let answer: (d: Destination[]) => void = () => undefined;
    const slow = await nearEnd({ resolve: () => new Promise((r) => (answer = r)) });
    slow.leg.invite(byName, opts, slow.sink);
    slow.leg.cancel();
    answer([udp(far.port)]);
    await until(() => slow.events.length > 0);
    expect(slow.events).toEqual(['final 487']);
    expect(far.invites).toHaveLength(0);
  });

  it('leaves IP literals to the transport, without asking the resolver', async () => {
    const far = await farEnd(200);
    let asked = 0;
    const near = await nearEnd({ resolve: () => (asked++, Promise.resolve([])) });
    near.leg.invite(
      { uri: `sip:+15550100@127.0.0.1:${far.port}`, host: '127.0.0.1', port: far.port, transport: 'udp' },
      opts,
      near.sink,
    );
    await until(() => near.events.includes('final 200'));
    expect(asked).toBe(0);
  });
});

describe('UacLeg and transport errors (RFC 3261 8.1.3.1, 17.1.4)', () => {
  it('reports a TCP INVITE to a closed port at once, on a clock that never moves', async () => {
    const near = await nearEnd({});
    const port = await closedTcpPort();
    near.leg.invite(
      { uri: `sip:+15550100@127.0.0.1:${port};transport=tcp`, host: '127.0.0.1', port, transport: 'tcp' },
      opts,
      near.sink,
    );
    await until(() => near.events.length > 0);
    expect(near.events).toEqual(['error']);
    expect(near.errors[0].message).toMatch(/ECONNREFUSED/);
    expect(near.clock.monotonic()).toBe(0);
  });

  it('moves to the next RFC 3263 destination at once when a connection is refused', async () => {
    const far = await farEnd(200);
    const port = await closedTcpPort();
    const tcp: Destination = { transport: 'TCP', host: '127.0.0.1', port, reliable: true };
    const near = await nearEnd({ resolve: () => Promise.resolve([tcp, udp(far.port)]) });
    near.leg.invite(byName, opts, near.sink);
    await until(() => near.events.includes('final 200'));
    expect(near.clock.monotonic()).toBe(0);
    expect(far.invites).toHaveLength(1);
    expect(far.invites[0].transport).toBe('UDP');
    expect(far.invites[0].req.via[0].transport).toBe('UDP');
  });
});

describe('UacLeg and RFC 3261 18.1.1', () => {
  const bigOffer = () => `v=0\r\n${'a=x-padding:0123456789abcdef0123456789abcdef\r\n'.repeat(40)}`;
  const target = (port: number) => ({
    uri: `sip:+15550100@127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    transport: 'udp' as const,
  });

  it('sends an INVITE over 1300 bytes over TCP, Via saying so, when the target takes TCP', async () => {
    const far = await farEnd(200);
    const near = await nearEnd({ offer: bigOffer, largeRequestsOverTcp: true });
    near.leg.invite(target(far.port), opts, near.sink);
    await until(() => near.events.includes('final 200'));
    expect(far.invites).toHaveLength(1);
    expect(far.invites[0].transport).toBe('TCP');
    expect(far.invites[0].req.via[0].transport).toBe('TCP');
  });

  it('keeps small INVITEs, and every INVITE without the option, on UDP', async () => {
    const far = await farEnd(200);
    const small = await nearEnd({ offer: () => 'v=0\r\n', largeRequestsOverTcp: true });
    small.leg.invite(target(far.port), opts, small.sink);
    const big = await nearEnd({ offer: bigOffer });
    big.leg.invite(target(far.port), opts, big.sink);
    await until(() => far.invites.length === 2);
    expect(far.invites.map((i) => i.transport)).toEqual(['UDP', 'UDP']);
  });

  it('falls back to UDP at once when TCP is refused (no TCP listener), not after timer B', async () => {
    const far = await farEnd(200);
    // The far end's TCP listener goes away; UDP stays.
    await (far.stack as unknown as { tcp: { close(): Promise<void> } }).tcp.close();
    const near = await nearEnd({ offer: bigOffer, largeRequestsOverTcp: true });
    near.leg.invite(target(far.port), opts, near.sink);
    // The near end's clock never moves: the refused connection alone moves the INVITE on.
    await until(() => near.events.includes('final 200'));
    expect(far.invites).toHaveLength(1);
    expect(far.invites[0].transport).toBe('UDP');
    expect(far.invites[0].req.via[0].transport).toBe('UDP');
  });
});
