// Hand-on rules (transfer-handon.ts) as plain functions: which REFERs are taken and where their
// Refer-To goes, and the sipfrag status a failed hand-on reports.
import { describe, expect, it } from 'vitest';
import { createRequest } from '../../sip/message/build.js';
import { parseUri } from '../../sip/message/uri.js';
import { checkRefer, dialableUri, sipfragOfFailure } from './transfer-handon.js';
import type { DialTarget } from './transfer-route.js';

const HOST = '127.0.0.1';

describe('hand-on rules', () => {
  const req = (...referTo: string[]) =>
    createRequest({
      method: 'REFER',
      uri: `sip:sb@${HOST}`,
      headers: [
        ['Via', 'SIP/2.0/UDP 192.0.2.9;branch=z9hG4bKr'],
        ['From', '<sip:a@example.com>;tag=1'],
        ['To', `<sip:sb@${HOST}>;tag=2`],
        ['Call-ID', 'r-1'],
        ['CSeq', '3 REFER'],
        ...referTo.map((v) => ['Refer-To', v] as [string, string]),
      ],
    });
  const anywhere = (uri: string): DialTarget => ({
    target: { uri, host: 'h', port: null, transport: 'udp' },
    auth: { username: '', password: '' },
  });

  it('reads Refer-To as a destination: tel: without separators, sip: without URI headers', () => {
    const ok = (v: string) => {
      const c = checkRefer(req(v), anywhere);
      return c.ok ? c.uri : c.status;
    };
    expect(ok('<tel:+1-555-501-88>')).toBe('tel:+155550188');
    expect(ok('<sip:+15550188@trunk.example;user=phone?X-Foo=1>')).toBe(
      'sip:+15550188@trunk.example;user=phone',
    );
    expect(ok('sips:bob@example.com')).toBe('sips:bob@example.com');
    expect(ok('<sip:example.com>')).toBe(603);
    expect(ok('<mailto:bob@example.com>')).toBe(603);
    expect(ok('<sip:broken')).toBe(400);
    expect(checkRefer(req('<tel:+1>', '<tel:+2>'), anywhere)).toMatchObject({ status: 400 });
    expect(checkRefer(req(), anywhere)).toMatchObject({ status: 400 });
    expect(checkRefer(req('<tel:+15550188>'), () => null)).toMatchObject({ status: 603 });
    expect(dialableUri(parseUri('tel:+44-20-(7946)-0000'))).toBe('tel:+442079460000');
  });

  it('reports a failed hand-on with a final status the referrer understands', () => {
    expect(
      [
        'no_answer',
        'busy',
        'declined',
        'invalid_number',
        'trunk_auth_failed',
        'media_failed',
        'caller_hangup',
      ].map((r) => sipfragOfFailure(r)[0]),
    ).toEqual([480, 486, 603, 404, 403, 488, 487]);
    expect(sipfragOfFailure('sip_502')).toEqual([502, 'Server Failure']);
    expect(sipfragOfFailure('leg_failed')).toEqual([503, 'Service Unavailable']);
  });
});
