import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { createReply } from './message/build.js';
import type { SipRequest } from './message/types.js';
import { OptionsPinger, type PingHealth } from './options-pinger.js';
import type { ClientHandlers } from './transaction/client.js';

function harness() {
  const clock = new FakeClock('2026-11-02T10:00:00Z');
  const sent: Array<{ req: SipRequest; h: ClientHandlers }> = [];
  const changes: Array<[PingHealth, string | null]> = [];
  let n = 0;
  const pinger = new OptionsPinger({
    stack: { clock, transactions: { sendRequest: (req, _to, h) => void sent.push({ req, h }) } },
    destination: { transport: 'UDP', host: '203.0.113.5', port: 5060, reliable: false },
    uri: 'sip:203.0.113.5',
    via: '192.0.2.10:5060',
    newId: () => `id${++n}`,
    onChange: (h, why) => changes.push([h, why]),
  });
  const answer = (status: number) => {
    const { req, h } = sent[sent.length - 1]!;
    h.onResponse(createReply(req, status, 'X', { toTag: 't' }), {} as never);
  };
  return { clock, sent, changes, pinger, answer };
}

describe('OptionsPinger', () => {
  it('pings every 30 s; any answer but 503 is up; two failures in a row are down; one answer is up again', () => {
    const t = harness();
    t.pinger.start();
    expect(t.sent[0]!.req.method).toBe('OPTIONS');
    t.answer(404); // a host that refuses OPTIONS still answers SIP
    expect(t.changes).toEqual([['up', null]]);
    t.clock.advance(29_999);
    expect(t.sent).toHaveLength(1);
    t.clock.advance(1);
    expect(t.sent).toHaveLength(2);
    expect(t.sent[1]!.req.callId).not.toBe(t.sent[0]!.req.callId);
    t.clock.advance(5_000); // unanswered for the 5 s timeout: one failure, still up
    expect(t.changes).toHaveLength(1);
    t.clock.advance(30_000);
    t.answer(503);
    expect(t.changes.at(-1)).toEqual(['down', '503 X']);
    // A late answer to an abandoned ping changes nothing.
    t.sent[1]!.h.onResponse(createReply(t.sent[1]!.req, 200, 'OK', { toTag: 't' }), {} as never);
    expect(t.changes).toHaveLength(2);
    t.clock.advance(30_000);
    t.sent.at(-1)!.h.onTransportError?.({} as never, new Error('ECONNREFUSED'));
    expect(t.changes).toHaveLength(2); // down stays down, reported once
    t.clock.advance(30_000);
    t.answer(200);
    expect(t.changes.at(-1)).toEqual(['up', null]);
    t.pinger.stop();
    expect(t.clock.pending()).toBe(0);
  });
});
