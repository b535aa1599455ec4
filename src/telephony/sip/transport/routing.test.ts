// Via stamping and response routing (RFC 3261 18.2, RFC 3581), per-source throttling, and the
// receiver's answer-or-drop decisions, without sockets.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { getHeaders } from '../message/access.js';
import { parseMessage } from '../message/parse.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import type { Destination } from '../transaction/types.js';
import { Receiver } from './receiver.js';
import type { Source } from './routing.js';
import { requestDestination, responseDestination, stampVia } from './routing.js';
import { SourceThrottle } from './throttle.js';

const opts = (via: string, extra: string[] = []): string =>
  [
    'OPTIONS sip:bob@example.com SIP/2.0',
    `Via: ${via}`,
    'Max-Forwards: 70',
    'To: <sip:bob@example.com>',
    'From: <sip:alice@example.com>;tag=1',
    'Call-ID: c1',
    'CSeq: 1 OPTIONS',
    ...extra,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
const req = (via: string, extra?: string[]): SipRequest => parseMessage(opts(via, extra)) as SipRequest;
const udp = (address: string, port: number): Source => ({ transport: 'UDP', address, port });

describe('Via stamping', () => {
  it('adds received when the sent-by is not the source, and fills rport', () => {
    const r = stampVia(
      req('SIP/2.0/UDP pc33.example.com:5060;branch=z9hG4bK1;rport, SIP/2.0/UDP p2;branch=z9hG4bK2'),
      udp('198.51.100.4', 41000),
    );
    expect(r.via[0]).toMatchObject({ host: 'pc33.example.com', received: '198.51.100.4', rport: 41000 });
    expect(getHeaders(r, 'Via')).toEqual([
      'SIP/2.0/UDP pc33.example.com:5060;branch=z9hG4bK1;rport=41000;received=198.51.100.4, SIP/2.0/UDP p2;branch=z9hG4bK2',
    ]);
    expect(parseMessage(Buffer.from(opts(getHeaders(r, 'Via')[0])))).toMatchObject({ via: r.via });
  });

  it('leaves a truthful Via alone and writes IPv6 received bare', () => {
    const same = req('SIP/2.0/UDP 198.51.100.4:5060;branch=z9hG4bK1');
    expect(stampVia(same, udp('198.51.100.4', 5060))).toBe(same);
    const v6 = stampVia(same, udp('2001:db8::7', 5060));
    expect(v6.via[0].received).toBe('2001:db8::7');
    expect((parseMessage(opts(getHeaders(v6, 'Via')[0])) as SipRequest).via[0].received).toBe('2001:db8::7');
  });
});

describe('a forged received parameter', () => {
  it('is replaced by the true source, so responses and allowed_ips never follow a claimed address', () => {
    const s = udp('203.0.113.66', 5060);
    const forged = stampVia(req('SIP/2.0/UDP 203.0.113.66:5060;branch=z9hG4bK1;received=10.0.0.7'), s);
    expect(forged.via[0].received).toBe('203.0.113.66');
    expect(responseDestination(forged.via[0], s)).toMatchObject({ host: '203.0.113.66', port: 5060 });
    const withRport = stampVia(req('SIP/2.0/UDP 10.0.0.7;branch=z9hG4bK1;rport=5070;received=10.0.0.7'), s);
    expect(responseDestination(withRport.via[0], s).host).toBe('203.0.113.66');
  });
});

describe('response routing', () => {
  it('sends to received:rport, received:port, or sent-by', () => {
    const s = udp('198.51.100.4', 41000);
    const route = (via: string): Destination => responseDestination(stampVia(req(via), s).via[0], s);
    expect(route('SIP/2.0/UDP pc33.example.com;branch=z9hG4bK1;rport')).toMatchObject({
      host: '198.51.100.4',
      port: 41000,
    });
    expect(route('SIP/2.0/UDP pc33.example.com:5070;branch=z9hG4bK1')).toMatchObject({
      host: '198.51.100.4',
      port: 5070,
    });
    expect(route('SIP/2.0/UDP 198.51.100.4;branch=z9hG4bK1')).toMatchObject({
      host: '198.51.100.4',
      port: 5060,
    });
  });

  it('answers on the same connection for TCP and TLS', () => {
    const s: Source = { transport: 'TCP', address: '198.51.100.4', port: 50123, connectionId: 'TCP-9' };
    expect(responseDestination(req('SIP/2.0/TCP x.example.com;branch=z9hG4bK1').via[0], s)).toEqual({
      transport: 'TCP',
      host: '198.51.100.4',
      port: 50123,
      reliable: true,
      connectionId: 'TCP-9',
    });
  });

  it('finds the next hop from Route or Request-URI', () => {
    expect(requestDestination(req('SIP/2.0/UDP a;branch=z9hG4bK1'))).toEqual({
      transport: 'UDP',
      host: 'example.com',
      port: 5060,
      reliable: false,
    });
    expect(
      requestDestination(req('SIP/2.0/UDP a;branch=z9hG4bK1', ['Route: <sips:edge.example.net;lr>'])),
    ).toMatchObject({ transport: 'TLS', host: 'edge.example.net', port: 5061 });
    expect(
      requestDestination(
        req('SIP/2.0/UDP a;branch=z9hG4bK1', ['Route: <sip:10.0.0.1:5080;transport=tcp;lr>']),
      ),
    ).toMatchObject({ transport: 'TCP', port: 5080, reliable: true });
  });
});

describe('throttling', () => {
  it('slows one flooding source without touching another, and refills with time', () => {
    const clock = new FakeClock();
    const t = new SourceThrottle(clock, { ratePerSecond: 10, burst: 5 });
    const flood = Array.from({ length: 20 }, () => t.allow('203.0.113.66')).filter(Boolean).length;
    expect(flood).toBe(5);
    expect(t.allow('198.51.100.1')).toBe(true);
    clock.advance(300);
    expect([
      t.allow('203.0.113.66'),
      t.allow('203.0.113.66'),
      t.allow('203.0.113.66'),
      t.allow('203.0.113.66'),
    ]).toEqual([true, true, true, false]);
  });
});

describe('Receiver', () => {
  function setup() {
    const clock = new FakeClock();
    const requests: SipRequest[] = [];
    const responses: SipResponse[] = [];
    const replies: Array<{ text: string; to: Destination }> = [];
    const r = new Receiver({
      clock,
      handler: { onRequest: (m) => requests.push(m), onResponse: (m) => responses.push(m) },
      throttle: { ratePerSecond: 1, burst: 3 },
    });
    const feed = (text: string, source = udp('198.51.100.4', 41000)): void => {
      if (r.admit(source))
        r.handle(Buffer.from(text), source, (b, to) => replies.push({ text: b.toString(), to }));
    };
    return { r, requests, responses, replies, feed };
  }

  it('hands up good requests with the Via stamped', () => {
    const { feed, requests, r } = setup();
    feed(opts('SIP/2.0/UDP pc33.example.com;branch=z9hG4bK1;rport'));
    expect(requests[0].via[0]).toMatchObject({ received: '198.51.100.4', rport: 41000 });
    expect(r.stats).toMatchObject({ received: 1, accepted: 1 });
  });

  it('answers a malformed request with 400 at received:rport, and drops what cannot be answered', () => {
    const { feed, replies, r } = setup();
    feed(opts('SIP/2.0/UDP pc33.example.com;branch=z9hG4bK1;rport', ['Contact: <sip:broken']));
    expect(replies).toHaveLength(1);
    expect(replies[0].text).toMatch(/^SIP\/2.0 400 Bad Request\r\n/);
    expect(replies[0].to).toMatchObject({ host: '198.51.100.4', port: 41000 });
    feed('garbage\r\n\r\n');
    expect(replies).toHaveLength(1);
    expect(r.stats).toMatchObject({ answered: 1, discarded: 1 });
  });

  it('answers semantic failures with the header fields the status needs', () => {
    const { feed, replies } = setup();
    feed(opts('SIP/2.0/UDP 198.51.100.4:41000;branch=z9hG4bK1', ['Require: foo']));
    const res = parseMessage(replies[0].text) as SipResponse;
    expect(res.status).toBe(420);
    expect(getHeaders(res, 'Unsupported')).toEqual(['foo']);
    expect(res.to.tag).toBeDefined();
  });

  it('survives a handler that throws', () => {
    const errors: unknown[] = [];
    const r = new Receiver({
      clock: new FakeClock(),
      handler: {
        onRequest: () => {
          throw new Error('boom');
        },
        onResponse: () => undefined,
      },
      onError: (e) => errors.push(e),
    });
    const source = udp('198.51.100.4', 5060);
    r.admit(source);
    expect(() =>
      r.handle(Buffer.from(opts('SIP/2.0/UDP 198.51.100.4;branch=z9hG4bK1')), source, () => undefined),
    ).not.toThrow();
    expect(r.stats.handlerErrors).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('counts throttled messages', () => {
    const { feed, requests, r } = setup();
    for (let i = 0; i < 5; i++) feed(opts(`SIP/2.0/UDP 198.51.100.4;branch=z9hG4bK${i}`));
    feed(opts('SIP/2.0/UDP 192.0.2.8;branch=z9hG4bKother'), udp('192.0.2.8', 5060));
    expect(requests).toHaveLength(4);
    expect(r.stats.throttled).toBe(2);
  });
});
