import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { DigestServer } from '../digest-server.js';
import { getHeader, getHeaders } from '../message/access.js';
import { createReply } from '../message/build.js';
import type { HeaderInit } from '../message/build.js';
import type { SipRequest } from '../message/types.js';
import { formatUri } from '../message/uri.js';
import type { ClientHandlers } from '../transaction/client.js';
import type { Destination } from '../transaction/types.js';
import { RegisterBinding, type BindingState, type RegistrarStack } from './binding.js';

const UDP: Destination = { transport: 'UDP', host: '203.0.113.5', port: 5060, reliable: false };
const TCP: Destination = { ...UDP, transport: 'TCP', reliable: true };
const CONTACT = 'sip:acct@192.0.2.10:5060;sb-trunk=t1';

/** A registrar in a test: every REGISTER and its handlers, answered by the test (or not at all). */
function harness(destination = UDP, password = 's3cret') {
  const clock = new FakeClock('2026-11-02T10:00:00Z');
  const sent: Array<{ req: SipRequest; h: ClientHandlers }> = [];
  let connectionOpen = true;
  const keepAlives: number[] = [];
  const stack: RegistrarStack = {
    clock,
    transactions: { sendRequest: (req, _to, h) => void sent.push({ req, h }) },
    keepAlive: () => {
      keepAlives.push(clock.now());
      return connectionOpen;
    },
  };
  const states: BindingState[] = [];
  let n = 0;
  const binding = new RegisterBinding({
    stack,
    destination,
    registrar: 'sip:203.0.113.5',
    aor: 'sip:acct@203.0.113.5',
    contact: CONTACT,
    via: '192.0.2.10:5060',
    username: 'acct',
    password,
    newId: () => `id${++n}`,
    onChange: (s) => states.push(s),
  });
  const server = new DigestServer({ realm: 'carrier.test', secret: 'k', clock, algorithms: ['MD5'] });
  /** Answers the last REGISTER as a registrar that wants acct / s3cret does. */
  const answer = (grant = 'expires=600', extra: HeaderInit[] = []) => {
    const { req, h } = sent[sent.length - 1]!;
    const creds = getHeaders(req, 'Authorization');
    const verdict = server.verify(
      { method: 'REGISTER', uri: formatUri(req.uri), credentials: creds },
      (user) => (user === 'acct' ? { password: 's3cret' } : undefined),
    );
    const reply = verdict.ok
      ? createReply(req, 200, 'OK', {
          toTag: 'r',
          headers: [['Contact', `<${CONTACT}>;${grant}`], ...extra],
        })
      : createReply(req, 401, 'Unauthorized', {
          toTag: 'r',
          headers: verdict.challenge.map((c) => ['WWW-Authenticate', c] as const),
        });
    h.onResponse(reply, {} as never);
    return reply.status;
  };
  const last = () => sent[sent.length - 1]!;
  return {
    clock,
    sent,
    states,
    binding,
    answer,
    last,
    keepAlives,
    closeConnection: () => (connectionOpen = false),
  };
}

describe('RegisterBinding', () => {
  it('registers with the digest answered, for the time granted, and refreshes before it ends', () => {
    const h = harness();
    h.binding.start();
    const first = h.last().req;
    expect(first.method).toBe('REGISTER');
    expect(formatUri(first.uri)).toBe('sip:203.0.113.5');
    expect(getHeader(first, 'Contact')).toBe(`<${CONTACT}>`);
    expect(getHeader(first, 'Expires')).toBe('3600');
    expect(h.answer()).toBe(401);
    expect(h.sent).toHaveLength(2);
    const second = h.last().req;
    expect(second.callId).toBe(first.callId);
    expect(second.cseq.seq).toBe(first.cseq.seq + 1);
    expect(h.answer()).toBe(200);
    expect(h.states).toEqual([
      { status: 'registered', error: null, until: Date.parse('2026-11-02T10:10:00Z') },
    ]);
    // 600 s granted: the refresh goes at 540 s (a minute before the end), same Call-ID, higher CSeq.
    h.clock.advance(539_999);
    expect(h.sent).toHaveLength(2);
    h.clock.advance(1);
    expect(h.sent).toHaveLength(3);
    expect(h.last().req.callId).toBe(first.callId);
    expect(h.last().req.cseq.seq).toBe(second.cseq.seq + 1);
    expect(h.answer('expires=60')).toBe(401);
    expect(h.answer('expires=60')).toBe(200);
    expect(h.states.at(-1)).toEqual({
      status: 'registered',
      error: null,
      until: Date.parse('2026-11-02T10:10:00Z'),
    });
    // 60 s granted: half time (30 s) is later than a minute before the end.
    h.clock.advance(30_000);
    expect(h.sent).toHaveLength(5);
  });

  it('reads the Expires header when the Contact has no expires, and asks again after a 423', () => {
    const h = harness();
    h.binding.start();
    const { req, h: handlers } = h.last();
    handlers.onResponse(
      createReply(req, 423, 'Interval Too Brief', { toTag: 'r', headers: [['Min-Expires', '7200']] }),
      {} as never,
    );
    expect(getHeader(h.last().req, 'Expires')).toBe('7200');
    h.answer();
    expect(h.answer('x=1', [['Expires', '120']])).toBe(200);
    expect(h.states.at(-1)?.until).toBe(h.clock.now() + 120_000);
  });

  it('a refused password is failed with the reason, retried with a growing delay, never in a loop', () => {
    const h = harness(UDP, 'wrong');
    h.binding.start();
    expect(h.answer()).toBe(401);
    expect(h.answer()).toBe(401);
    // The second challenge after our answer: no third REGISTER in this attempt.
    expect(h.sent).toHaveLength(2);
    expect(h.states).toEqual([
      {
        status: 'failed',
        error: '401 Unauthorized: the registrar refused the credentials',
        until: null,
      },
    ]);
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      const before = h.clock.monotonic();
      const count = h.sent.length;
      while (h.sent.length === count) h.clock.advance(1000);
      times.push(h.clock.monotonic() - before);
      h.answer();
      h.answer();
    }
    expect(times).toEqual([5000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('no answer, garbage (never parsed, so never arriving) or a transport error: failed, then retried', () => {
    const h = harness();
    h.binding.start();
    h.last().h.onTimeout?.({} as never);
    expect(h.states.at(-1)).toMatchObject({ status: 'failed', error: 'no answer from the registrar' });
    h.clock.advance(5000);
    h.last().h.onTransportError?.({} as never, new Error('ECONNREFUSED'));
    expect(h.states.at(-1)?.error).toBe('transport error: ECONNREFUSED sending to the registrar');
    h.clock.advance(10_000);
    const { req, h: handlers } = h.last();
    handlers.onResponse(
      createReply(req, 503, 'Service Unavailable', { toTag: 'r', headers: [['Retry-After', '90']] }),
      {} as never,
    );
    expect(h.states.at(-1)?.error).toBe('503 Service Unavailable');
    h.clock.advance(89_999);
    expect(h.sent).toHaveLength(3);
    h.clock.advance(1);
    expect(h.sent).toHaveLength(4);
    h.answer();
    h.answer();
    expect(h.states.at(-1)?.status).toBe('registered');
  });

  it('over TCP keeps the connection alive and registers again when it is gone', () => {
    const h = harness(TCP);
    h.binding.start();
    h.answer();
    h.answer();
    h.clock.advance(60_000);
    expect(h.keepAlives).toHaveLength(2);
    h.closeConnection();
    h.clock.advance(30_000);
    expect(h.states.at(-1)).toEqual({ status: 'registering', error: null, until: null });
    expect(h.sent).toHaveLength(3);
  });

  it('unregisters with Expires: 0 when stopped, and says nothing more', async () => {
    const h = harness();
    h.binding.start();
    h.answer();
    h.answer();
    const states = h.states.length;
    const stopped = h.binding.stop();
    expect(getHeader(h.last().req, 'Expires')).toBe('0');
    h.answer('expires=0');
    h.answer('expires=0');
    await stopped;
    expect(h.states).toHaveLength(states);
    expect(h.clock.pending()).toBe(0);
  });
});
