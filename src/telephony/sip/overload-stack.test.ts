// The stack on loopback with overload control and the per-source flood throttle: INVITEs over the
// node's capacity are answered 503 + Retry-After by the stack before the call controller sees
// them, and one source flooding the port is dropped while another source is answered as usual.
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { observeTelemetry, type TelemetryEvent } from '../../shared/telemetry.js';
import { getHeader } from './message/access.js';
import { parseMessage } from './message/parse.js';
import type { SipRequest, SipResponse } from './message/types.js';
import { OverloadGate } from './overload.js';
import { SipStack, type SipStackOptions } from './stack.js';

const request = (method: string, branch: string, toTag = ''): string =>
  [
    `${method} sip:+14155550100@ws.sip.test SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:9;branch=${branch};rport`,
    'Max-Forwards: 70',
    `To: <sip:+14155550100@ws.sip.test>${toTag}`,
    'From: <sip:carrier@127.0.0.1>;tag=c1',
    `Call-ID: ov-${branch}`,
    `CSeq: 1 ${method}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
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

async function client(address = '127.0.0.1') {
  const socket = createSocket('udp4');
  closers.push(() => socket.close());
  const responses: SipResponse[] = [];
  // Final responses only (the transaction layer sends 100 Trying for every INVITE at once).
  socket.on('message', (m) => {
    const r = parseMessage(m) as SipResponse;
    if (r.status >= 200) responses.push(r);
  });
  await new Promise<void>((r) => socket.bind(0, address, () => r()));
  return { socket, responses };
}

async function start(extra: Partial<SipStackOptions>) {
  const clock = new FakeClock();
  const stack = new SipStack({ clock, host: '127.0.0.1', port: 0, ...extra });
  const ports = await stack.listen();
  closers.push(() => stack.close());
  return { stack, clock, port: ports.udp! };
}

const send = (s: Socket, port: number, text: string): void => void s.send(text, port, '127.0.0.1');

describe('overload control in the stack', () => {
  it('answers INVITEs over capacity 503 with Retry-After before the call controller sees them', async () => {
    const events: TelemetryEvent[] = [];
    closers.push(observeTelemetry((e) => events.push(e)));
    const clock = new FakeClock();
    const taken: SipRequest[] = [];
    // One call at a time: the first INVITE is taken (and left ringing), the next two refused.
    const gate = new OverloadGate(
      clock,
      { maxConcurrentCalls: 1, maxCallsPerSecond: 100 },
      () => taken.length,
    );
    const { port } = await start({
      clock,
      admission: gate,
      onRequest: (req) => {
        if (req.method !== 'INVITE') return false;
        taken.push(req);
        return true;
      },
    });
    const c = await client();
    send(c.socket, port, request('INVITE', 'z9hG4bKa1'));
    await until(() => taken.length === 1);
    send(c.socket, port, request('INVITE', 'z9hG4bKa2'));
    send(c.socket, port, request('INVITE', 'z9hG4bKa3'));
    await until(() => c.responses.filter((r) => r.status === 503).length === 2);
    const refused = c.responses.filter((r) => r.status === 503);
    expect(refused.map((r) => r.callId).sort()).toEqual(['ov-z9hG4bKa2', 'ov-z9hG4bKa3']);
    for (const r of refused) {
      expect(r.reason).toBe('Service Unavailable');
      expect(getHeader(r, 'Retry-After')).toBe('5');
      expect(r.to.tag).toBeDefined();
    }
    expect(taken).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'call.refused')).toEqual([
      { kind: 'call.refused', reason: 'max_concurrent_calls' },
      { kind: 'call.refused', reason: 'max_concurrent_calls' },
    ]);
  });

  it('refuses over MAX_CALLS_PER_SECOND with Retry-After 1; a retransmission gets the same 503 and is not counted again', async () => {
    const clock = new FakeClock();
    const taken: SipRequest[] = [];
    const gate = new OverloadGate(clock, { maxCallsPerSecond: 5 }, () => 0); // a burst of 1
    const admit = gate.admit.bind(gate);
    let asked = 0;
    const { port } = await start({
      clock,
      admission: { admit: () => (asked++, admit()) },
      onRequest: (req) => (req.method === 'INVITE' ? (taken.push(req), true) : false),
    });
    const c = await client();
    send(c.socket, port, request('INVITE', 'z9hG4bKr1'));
    await until(() => taken.length === 1);
    send(c.socket, port, request('INVITE', 'z9hG4bKr2'));
    await until(() => c.responses.length === 1);
    expect(c.responses[0]).toMatchObject({ status: 503, callId: 'ov-z9hG4bKr2' });
    expect(getHeader(c.responses[0]!, 'Retry-After')).toBe('1');
    send(c.socket, port, request('INVITE', 'z9hG4bKr2')); // the same INVITE again
    await until(() => c.responses.length === 2);
    expect(c.responses[1]).toMatchObject({ status: 503, callId: 'ov-z9hG4bKr2' });
    expect(asked).toBe(2);
    // A fifth of a second later a token is back.
    clock.advance(200);
    send(c.socket, port, request('INVITE', 'z9hG4bKr3'));
    await until(() => taken.length === 2);
  });

  it('leaves in-dialog requests and other methods alone', async () => {
    const clock = new FakeClock();
    const gate = new OverloadGate(clock, { maxConcurrentCalls: 1 }, () => 1); // always full
    const { port } = await start({ clock, admission: gate });
    const c = await client();
    send(c.socket, port, request('OPTIONS', 'z9hG4bKo1'));
    send(c.socket, port, request('INVITE', 'z9hG4bKre', ';tag=ours'));
    await until(() => c.responses.length === 2);
    // The stack's own answers: 200 to OPTIONS, 480 to an INVITE nobody took (no 503).
    expect(c.responses.map((r) => r.status).sort()).toEqual([200, 480]);
  });
});

describe('the per-source flood throttle', () => {
  it('drops what one source sends past its burst while another source is answered in full', async () => {
    const events: TelemetryEvent[] = [];
    closers.push(observeTelemetry((e) => events.push(e)));
    const { stack, port } = await start({ throttle: { ratePerSecond: 10, burst: 20 } });
    const flooder = await client('127.0.0.1');
    const caller = await client('127.0.0.2');
    // In rounds, so the kernel's receive buffer never overflows (every datagram reaches the stack).
    for (let i = 0; i < 200; i++) {
      send(flooder.socket, port, request('OPTIONS', `z9hG4bKf${i}`));
      if (i % 20 === 19) await until(() => stack.receiver.stats.received > i);
    }
    for (let i = 0; i < 5; i++) send(caller.socket, port, request('OPTIONS', `z9hG4bKc${i}`));
    await until(() => caller.responses.length === 5);
    // The fake clock stands still: no token comes back, so exactly the burst was answered.
    expect(flooder.responses).toHaveLength(20);
    expect(stack.receiver.stats.throttled).toBe(180);
    expect(events.filter((e) => e.kind === 'sip.throttled')).toHaveLength(180);
  });

  it('never throttles an exempt source (a proxy in front of the node)', async () => {
    const { stack, port } = await start({
      throttle: { ratePerSecond: 10, burst: 20, exempt: ['127.0.0.0/30'] },
    });
    const proxy = await client('127.0.0.1');
    for (let i = 0; i < 100; i++) send(proxy.socket, port, request('OPTIONS', `z9hG4bKp${i}`));
    await until(() => proxy.responses.length === 100);
    expect(stack.receiver.stats.throttled).toBe(0);
  });
});
