// RFC 3261 17 transactions on a fake clock: retransmission schedules (A, E, G), timeouts (B, F,
// H), wait states (D, I, J, K, L, M), ACK for non-2xx, absorption of retransmitted requests.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { createReply, createRequest } from '../message/build.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/types.js';
import type { ClientInviteTransaction } from './client.js';
import { TransactionManager } from './manager.js';
import { Retransmit2xx } from './retransmit-2xx.js';
import type { Source } from '../transport/routing.js';
import type { Destination } from './types.js';

const UDP: Destination = { transport: 'UDP', host: '192.0.2.9', port: 5060, reliable: false };
const TCP: Destination = { transport: 'TCP', host: '192.0.2.9', port: 5060, reliable: true };
/** Where the test's requests came from (a NATed source port, unlike the response destination). */
const UDP_FROM: Source = { transport: 'UDP', address: '192.0.2.9', port: 40000 };
const TCP_FROM: Source = { transport: 'TCP', address: '192.0.2.9', port: 40001, connectionId: 'c1' };

function request(method: string, branch = 'z9hG4bKabc123'): SipRequest {
  return createRequest({
    method,
    uri: 'sip:bob@example.com',
    headers: [
      ['Via', `SIP/2.0/UDP 192.0.2.1:5060;branch=${branch}`],
      ['Max-Forwards', '70'],
      ['From', '<sip:alice@example.com>;tag=a1'],
      ['To', '<sip:bob@example.com>'],
      ['Call-ID', 'call-1'],
      ['CSeq', `1 ${method}`],
      ['Route', '<sip:proxy.example.com;lr>'],
    ],
  });
}

function setup(extra: { autoTrying?: boolean; failSends?: boolean } = {}) {
  const clock = new FakeClock();
  const sent: Array<{ at: number; m: SipMessage }> = [];
  const got: Array<{ at: number; what: string }> = [];
  const incoming: Array<{ req: SipRequest; tx: unknown; source: Source }> = [];
  const mgr = new TransactionManager({
    clock,
    send: (m) => {
      sent.push({ at: clock.monotonic(), m });
      return !extra.failSends;
    },
    onRequest: (req, tx, source) => incoming.push({ req, tx, source }),
    ...(extra.autoTrying !== undefined ? { autoTrying: extra.autoTrying } : {}),
  });
  const handlers = {
    onResponse: (r: SipResponse) => got.push({ at: clock.monotonic(), what: String(r.status) }),
    onTimeout: () => got.push({ at: clock.monotonic(), what: 'timeout' }),
    onTransportError: () => got.push({ at: clock.monotonic(), what: 'transport-error' }),
  };
  const times = (method?: string) =>
    sent
      .filter((s) => method === undefined || (s.m.kind === 'request' && s.m.method === method))
      .map((s) => s.at);
  return { clock, sent, got, incoming, mgr, handlers, times };
}

const reply = (req: SipRequest, status: number, tag = 'b2') => createReply(req, status, 'X', { toTag: tag });

describe('client INVITE transaction', () => {
  it('retransmits on timer A (doubling) and times out on timer B at 64*T1', () => {
    const { clock, mgr, handlers, got, times } = setup();
    const tx = mgr.sendRequest(request('INVITE'), UDP, handlers);
    expect(tx.activeTimers()).toEqual(['A', 'B']);
    clock.advance(40_000);
    expect(times('INVITE')).toEqual([0, 500, 1500, 3500, 7500, 15500, 31500]);
    expect(got).toEqual([{ at: 32_000, what: 'timeout' }]);
    expect(mgr.size.client).toBe(0);
  });

  it('stops retransmitting on 1xx, ACKs a non-2xx final itself and waits timer D', () => {
    const { clock, mgr, handlers, got, sent, times } = setup();
    const inv = request('INVITE');
    const tx = mgr.sendRequest(inv, UDP, handlers);
    clock.advance(600);
    mgr.receiveResponse(reply(inv, 180), UDP);
    clock.advance(10_000);
    expect(times('INVITE')).toEqual([0, 500]);
    expect(tx.state).toBe('Proceeding');
    mgr.receiveResponse(reply(inv, 486), UDP);
    const ack = sent.at(-1)!.m as SipRequest;
    expect(ack.method).toBe('ACK');
    expect(ack.via[0].branch).toBe('z9hG4bKabc123');
    expect(ack.to.tag).toBe('b2');
    expect(ack.cseq).toEqual({ seq: 1, method: 'ACK' });
    expect(ack.route).toEqual(inv.route);
    expect(tx.state).toBe('Completed');
    // A retransmitted final response gets the ACK again, and the TU does not hear of it twice.
    mgr.receiveResponse(reply(inv, 486), UDP);
    expect(times('ACK')).toHaveLength(2);
    expect(got.map((g) => g.what)).toEqual(['180', '486']);
    clock.advance(31_999);
    expect(tx.state).toBe('Completed');
    clock.advance(1);
    expect(tx.state).toBe('Terminated');
  });

  it('passes 2xx and its retransmissions to the TU until timer M (RFC 6026)', () => {
    const { clock, mgr, handlers, got } = setup();
    const inv = request('INVITE');
    const tx = mgr.sendRequest(inv, UDP, handlers);
    mgr.receiveResponse(reply(inv, 200), UDP);
    expect(tx.state).toBe('Accepted');
    mgr.receiveResponse(reply(inv, 200), UDP);
    expect(got.map((g) => g.what)).toEqual(['200', '200']);
    clock.advance(32_000);
    expect(tx.terminated).toBe(true);
  });

  it('does not retransmit over TCP and ends at once after a non-2xx', () => {
    const { clock, mgr, handlers, times } = setup();
    const inv = request('INVITE');
    const tx = mgr.sendRequest(inv, TCP, handlers);
    clock.advance(10_000);
    expect(times('INVITE')).toEqual([0]);
    mgr.receiveResponse(reply(inv, 503), TCP);
    expect(tx.state).toBe('Terminated');
  });

  it('reports transport errors', () => {
    const { mgr, handlers, got } = setup({ failSends: true });
    mgr.sendRequest(request('INVITE'), UDP, handlers);
    expect(got.map((g) => g.what)).toEqual(['transport-error']);
    expect(mgr.size.client).toBe(0);
  });

  it('abandoned in Calling: no more retransmissions, no timeout reported, late responses still passed on', () => {
    const { clock, mgr, handlers, got, times } = setup();
    const inv = request('INVITE');
    const tx = mgr.sendRequest(inv, UDP, handlers) as ClientInviteTransaction;
    clock.advance(4000);
    expect(tx.abandon()).toBe(true);
    expect(tx.activeTimers()).toEqual(['B']);
    mgr.receiveResponse(reply(inv, 180), UDP); // it woke up: its owner may CANCEL it now
    mgr.receiveResponse(reply(inv, 200), UDP); // and a 2xx, for its owner to ACK and BYE
    clock.advance(60_000);
    expect(times('INVITE')).toEqual([0, 500, 1500, 3500]);
    expect(got).toEqual([
      { at: 4000, what: '180' },
      { at: 4000, what: '200' },
    ]);
    // A silent one ends at timer B without a word.
    const quiet = setup();
    const other = quiet.mgr.sendRequest(request('INVITE', 'z9hG4bKq'), UDP, quiet.handlers);
    expect((other as ClientInviteTransaction).abandon()).toBe(true);
    quiet.clock.advance(32_000);
    expect(quiet.got).toEqual([]);
    expect(quiet.mgr.size.client).toBe(0);
  });

  it('cannot be abandoned once it drew a response', () => {
    const { mgr, handlers } = setup();
    const inv = request('INVITE');
    const tx = mgr.sendRequest(inv, UDP, handlers) as ClientInviteTransaction;
    mgr.receiveResponse(reply(inv, 100), UDP);
    expect(tx.abandon()).toBe(false);
    expect(tx.activeTimers()).toEqual([]);
  });
});

describe('a transport failure reported after the send (RFC 3261 17.1.4)', () => {
  it('ends a client transaction at once, before timer B or F, and only before a final response', () => {
    const clock = new FakeClock();
    const later: Array<(e: Error) => void> = [];
    const got: string[] = [];
    const mgr = new TransactionManager({
      clock,
      send: (_m, _d, onError) => {
        if (onError) later.push(onError);
        return true;
      },
      onRequest: () => undefined,
    });
    const handlers = {
      onResponse: (r: SipResponse) => got.push(String(r.status)),
      onTimeout: () => got.push('timeout'),
      onTransportError: (_tx: unknown, e?: Error) => got.push(`transport-error ${e?.message}`),
    };
    const inv = mgr.sendRequest(request('INVITE'), TCP, handlers);
    const bye = mgr.sendRequest(request('BYE', 'z9hG4bKbye'), TCP, handlers);
    clock.advance(1000);
    later[0](new Error('connect ECONNREFUSED'));
    later[1](new Error('connect ECONNREFUSED'));
    // A second report for the same send changes nothing.
    later[0](new Error('again'));
    expect(got).toEqual(['transport-error connect ECONNREFUSED', 'transport-error connect ECONNREFUSED']);
    expect(inv.state).toBe('Terminated');
    expect(bye.state).toBe('Terminated');
    expect(mgr.size.client).toBe(0);
    clock.advance(64_000);
    expect(got).toHaveLength(2);

    // After the final response the TU has its answer: a failure then only ends the transaction.
    const opt = mgr.sendRequest(request('OPTIONS', 'z9hG4bKopt'), UDP, handlers);
    mgr.receiveResponse(reply(opt.request, 200), UDP);
    later[2](new Error('late'));
    expect(got.slice(2)).toEqual(['200']);
    expect(opt.state).toBe('Terminated');
  });
});

describe('client non-INVITE transaction', () => {
  it('retransmits on timer E capped at T2 and times out on timer F', () => {
    const { clock, mgr, handlers, got, times } = setup();
    mgr.sendRequest(request('OPTIONS'), UDP, handlers);
    clock.advance(40_000);
    expect(times()).toEqual([0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500]);
    expect(got).toEqual([{ at: 32_000, what: 'timeout' }]);
  });

  it('goes to T2 after a provisional, then waits timer K after the final', () => {
    const { clock, mgr, handlers, times } = setup();
    const req = request('BYE');
    const tx = mgr.sendRequest(req, UDP, handlers);
    clock.advance(600);
    mgr.receiveResponse(reply(req, 100), UDP);
    clock.advance(5000);
    expect(times()).toEqual([0, 500, 1500, 5500]);
    mgr.receiveResponse(reply(req, 200), UDP);
    expect(tx.activeTimers()).toEqual(['K']);
    clock.advance(5000);
    expect(tx.terminated).toBe(true);
  });

  it('keeps CANCEL and INVITE with the same branch apart', () => {
    const { mgr, handlers, got } = setup();
    const inv = request('INVITE');
    const cancel = request('CANCEL');
    mgr.sendRequest(inv, UDP, handlers);
    mgr.sendRequest(cancel, UDP, handlers);
    mgr.receiveResponse(reply(cancel, 200), UDP);
    expect(mgr.size.client).toBe(2);
    expect(got.map((g) => g.what)).toEqual(['200']);
  });
});

describe('server INVITE transaction', () => {
  it('answers to the response destination and hands the TU the packet source', () => {
    const { mgr, sent, incoming } = setup();
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    expect(incoming[0]!.source).toEqual(UDP_FROM);
    expect((incoming[0]!.tx as { destination: Destination }).destination).toEqual(UDP);
    const ack = request('ACK', 'z9hG4bKother');
    mgr.receiveRequest(ack, UDP, UDP_FROM);
    expect(incoming[1]).toMatchObject({ tx: undefined, source: UDP_FROM });
    expect(sent).toHaveLength(1);
  });

  it('sends 100 Trying, answers retransmissions with the last response', () => {
    const { mgr, sent, incoming } = setup();
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    expect(incoming).toHaveLength(1);
    expect(sent.map((s) => (s.m as SipResponse).status)).toEqual([100, 100]);
  });

  it('retransmits a non-2xx on timer G until the ACK, then waits timer I', () => {
    const { clock, mgr, incoming, times } = setup({ autoTrying: false });
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    const tx = incoming[0].tx as { respond(r: SipResponse): void; state: string; activeTimers(): string[] };
    tx.respond(reply(inv, 486));
    clock.advance(8000);
    expect(times()).toEqual([0, 500, 1500, 3500, 7500]);
    const ack = createRequest({
      method: 'ACK',
      uri: inv.uri,
      headers: inv.headers.map((h) => (h.name === 'CSeq' ? { name: 'CSeq', value: '1 ACK' } : h)),
    });
    mgr.receiveRequest(ack, UDP, UDP_FROM);
    expect(tx.state).toBe('Confirmed');
    expect(tx.activeTimers()).toEqual(['I']);
    expect(incoming).toHaveLength(1);
    clock.advance(5000);
    expect(tx.state).toBe('Terminated');
    expect(times()).toHaveLength(5);
  });

  it('times out on timer H without an ACK', () => {
    const { clock, mgr, incoming, times } = setup({ autoTrying: false });
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    const tx = incoming[0].tx as { respond(r: SipResponse): void; handlers: object; state: string };
    let timedOut = -1;
    tx.handlers = { onTimeout: () => (timedOut = clock.monotonic()) };
    tx.respond(reply(inv, 480));
    clock.advance(40_000);
    expect(timedOut).toBe(32_000);
    expect(times()).toEqual([0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500]);
    expect(mgr.size.server).toBe(0);
  });

  it('absorbs retransmitted INVITEs after a 2xx and ends on timer L', () => {
    const { clock, mgr, incoming, sent } = setup();
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    const tx = incoming[0].tx as { respond(r: SipResponse): void; state: string };
    tx.respond(reply(inv, 200));
    expect(tx.state).toBe('Accepted');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    expect(sent).toHaveLength(2);
    expect(incoming).toHaveLength(1);
    clock.advance(32_000);
    expect(tx.state).toBe('Terminated');
  });

  it('hands a 2xx ACK (new branch) to the TU and finds the INVITE a CANCEL means', () => {
    const { mgr, incoming } = setup();
    const inv = request('INVITE');
    mgr.receiveRequest(inv, UDP, UDP_FROM);
    mgr.receiveRequest(request('ACK', 'z9hG4bKnewbranch'), UDP, UDP_FROM);
    expect(incoming[1].tx).toBeUndefined();
    expect(mgr.inviteFor(request('CANCEL'))).toBe(incoming[0].tx);
    expect(mgr.inviteFor(request('CANCEL', 'z9hG4bKother'))).toBeUndefined();
  });

  it('matches RFC 2543 retransmissions without a branch', () => {
    const { mgr, incoming } = setup();
    const old = createRequest({
      method: 'INVITE',
      uri: 'sip:bob@example.com',
      headers: request('INVITE').headers.map((h) =>
        h.name === 'Via' ? { name: 'Via', value: 'SIP/2.0/UDP 192.0.2.1' } : h,
      ),
    });
    mgr.receiveRequest(old, UDP, UDP_FROM);
    mgr.receiveRequest(old, UDP, UDP_FROM);
    expect(incoming).toHaveLength(1);
  });
});

describe('server non-INVITE transaction', () => {
  it('absorbs retransmissions, resends the final one, and waits timer J on UDP only', () => {
    const { clock, mgr, incoming, sent } = setup();
    const req = request('OPTIONS');
    mgr.receiveRequest(req, UDP, UDP_FROM);
    mgr.receiveRequest(req, UDP, UDP_FROM);
    expect(sent).toHaveLength(0);
    const tx = incoming[0].tx as { respond(r: SipResponse): void; state: string };
    tx.respond(reply(req, 200));
    mgr.receiveRequest(req, UDP, UDP_FROM);
    expect(sent.map((s) => (s.m as SipResponse).status)).toEqual([200, 200]);
    expect(incoming).toHaveLength(1);
    clock.advance(31_999);
    expect(tx.state).toBe('Completed');
    clock.advance(1);
    expect(tx.state).toBe('Terminated');

    const tcp = setup();
    tcp.mgr.receiveRequest(req, TCP, TCP_FROM);
    const t2 = tcp.incoming[0].tx as { respond(r: SipResponse): void; state: string };
    t2.respond(reply(req, 200));
    expect(t2.state).toBe('Terminated');
  });
});

describe('2xx retransmission by the UAS core', () => {
  it('resends until the ACK on UDP, and reports a missing ACK after 64*T1', () => {
    const clock = new FakeClock();
    const sends: number[] = [];
    const ok = reply(request('INVITE'), 200);
    let noAck = -1;
    const r = new Retransmit2xx(ok, UDP, {
      clock,
      send: () => void sends.push(clock.monotonic()),
      onNoAck: () => (noAck = clock.monotonic()),
    });
    r.start();
    clock.advance(8000);
    expect(sends).toEqual([0, 500, 1500, 3500, 7500]);
    r.ack();
    clock.advance(60_000);
    expect(sends).toHaveLength(5);
    expect(noAck).toBe(-1);

    const lost = new Retransmit2xx(ok, UDP, {
      clock,
      send: () => undefined,
      onNoAck: () => (noAck = clock.monotonic()),
    });
    const from = clock.monotonic();
    lost.start();
    clock.advance(40_000);
    expect(noAck - from).toBe(32_000);
  });
});
