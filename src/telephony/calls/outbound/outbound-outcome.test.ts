import { describe, expect, it } from 'vitest';
import { outboundOutcome, type OutboundEvent, type OutboundOutcome } from './outbound-outcome.js';

const ringing: OutboundOutcome = { kind: 'progress', status: 'ringing' };
const answered: OutboundOutcome = { kind: 'progress', status: 'in_progress' };
const end = (status: string, reason: string) => ({ kind: 'end', status, reason });
const final = (status: number, withCredentials = true): OutboundEvent => ({
  kind: 'final',
  status,
  withCredentials,
});

describe('outboundOutcome', () => {
  const table: [string, OutboundEvent, unknown][] = [
    ['100 Trying', { kind: 'provisional', status: 100 }, { kind: 'none' }],
    ['180 Ringing', { kind: 'provisional', status: 180 }, ringing],
    ['181 Forwarded', { kind: 'provisional', status: 181 }, ringing],
    ['182 Queued', { kind: 'provisional', status: 182 }, ringing],
    ['183 Session Progress', { kind: 'provisional', status: 183 }, ringing],
    ['199 Early Dialog Terminated', { kind: 'provisional', status: 199 }, { kind: 'none' }],
    ['200 OK', final(200), answered],
    ['202 Accepted', final(202), answered],
    ['486 Busy Here', final(486), end('busy', 'busy')],
    ['600 Busy Everywhere', final(600), end('busy', 'busy')],
    ['401 after credentials', final(401), end('failed', 'trunk_auth_failed')],
    ['407 after credentials', final(407), end('failed', 'trunk_auth_failed')],
    ['403 after credentials', final(403), end('failed', 'trunk_auth_failed')],
    ['401 unanswerable challenge', final(401, false), end('failed', 'trunk_auth_failed')],
    ['407 unanswerable challenge', final(407, false), end('failed', 'trunk_auth_failed')],
    ['403 without credentials', final(403, false), end('failed', 'carrier_error')],
    ['404 Not Found', final(404), end('failed', 'invalid_number')],
    ['484 Address Incomplete', final(484), end('failed', 'invalid_number')],
    ['302 Moved (redirects are not followed)', final(302), end('failed', 'carrier_error')],
    ['408 Request Timeout', final(408), end('failed', 'carrier_error')],
    ['480 Temporarily Unavailable', final(480), end('failed', 'carrier_error')],
    ['487 without our CANCEL', final(487), end('failed', 'carrier_error')],
    ['488 Not Acceptable Here', final(488), end('failed', 'carrier_error')],
    ['500 Server Internal Error', final(500), end('failed', 'carrier_error')],
    ['503 Service Unavailable', final(503), end('failed', 'carrier_error')],
    ['603 Decline', final(603), end('failed', 'carrier_error')],
    ['604 Does Not Exist Anywhere', final(604), end('failed', 'carrier_error')],
    ['transport timeout', { kind: 'transport_error' }, end('failed', 'carrier_error')],
    ['our CANCEL before answer', { kind: 'cancelled' }, end('cancelled', 'caller_cancelled')],
    ['ring timeout', { kind: 'ring_timeout' }, end('no_answer', 'ring_timeout')],
    ['BYE from the callee', { kind: 'bye' }, end('completed', 'callee_hangup')],
  ];

  it.each(table)('%s', (_name, event, expected) => {
    expect(outboundOutcome(event)).toEqual(expected);
  });

  it('maps every final status 300-699 to an end, and every 2xx to an answer', () => {
    for (let s = 200; s < 700; s++) {
      const out = outboundOutcome(final(s));
      if (s < 300) expect(out, String(s)).toEqual(answered);
      else expect(out.kind, String(s)).toBe('end');
    }
  });
});
