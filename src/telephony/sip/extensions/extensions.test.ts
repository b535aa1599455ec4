// SIP INFO DTMF, RFC 4028 session timers and RFC 3515 REFER helpers.
import { describe, expect, it } from 'vitest';
import { createReply, createRequest } from '../message/build.js';
import { getHeader, getHeaders } from '../message/access.js';
import type { SipRequest } from '../message/types.js';
import { formatUri } from '../message/uri.js';
import { parseInfoDtmf } from './info-dtmf.js';
import { parseReferTo, parseSipfragStatus, referNotifyHeaders, sipfrag } from './refer.js';
import {
  decideUasTimer,
  parseMinSE,
  parseSessionExpires,
  retryAfter422,
  timerSchedule,
} from './session-timer.js';

function req(method: string, extra: Array<[string, string]> = [], body?: string): SipRequest {
  return createRequest({
    method,
    uri: 'sip:sb@192.0.2.4',
    headers: [
      ['Via', 'SIP/2.0/UDP 192.0.2.9;branch=z9hG4bKx'],
      ['From', '<sip:a@example.com>;tag=1'],
      ['To', '<sip:sb@192.0.2.4>;tag=2'],
      ['Call-ID', 'ext-1'],
      ['CSeq', `7 ${method}`],
      ...extra,
    ],
    ...(body !== undefined ? { body } : {}),
  });
}

describe('INFO DTMF', () => {
  it('reads dtmf-relay and dtmf bodies', () => {
    expect(parseInfoDtmf('application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n')).toEqual({
      digit: '5',
      durationMs: 160,
    });
    expect(parseInfoDtmf('application/dtmf-relay', 'Signal= #\nDuration= 250')).toEqual({
      digit: '#',
      durationMs: 250,
    });
    expect(parseInfoDtmf('application/dtmf-relay', 'Signal=11\r\n')).toEqual({ digit: '#' });
    expect(parseInfoDtmf('application/dtmf; charset=x', new TextEncoder().encode('*'))).toEqual({
      digit: '*',
    });
    expect(parseInfoDtmf('application/dtmf-relay', 'Signal=Z\r\n')).toBeUndefined();
    expect(parseInfoDtmf('text/plain', '5')).toBeUndefined();
  });
});

describe('session timers', () => {
  it('parses Session-Expires', () => {
    expect(parseSessionExpires('1800;refresher=uac')).toEqual({ seconds: 1800, refresher: 'uac' });
    expect(parseSessionExpires('90')).toEqual({ seconds: 90 });
    expect(parseSessionExpires('x')).toBeUndefined();
  });

  it('refuses too small an interval with 422 and Min-SE', () => {
    expect(
      decideUasTimer(
        req('INVITE', [
          ['Session-Expires', '60'],
          ['Supported', 'timer'],
        ]),
      ),
    ).toEqual({
      ok: false,
      status: 422,
      reason: 'Session Interval Too Small',
      headers: [['Min-SE', '90']],
    });
  });

  it('honours the UAC’s choice, and refreshes itself when the UAC cannot', () => {
    expect(
      decideUasTimer(
        req('INVITE', [
          ['Session-Expires', '600;refresher=uas'],
          ['Supported', 'timer, 100rel'],
        ]),
      ),
    ).toEqual({
      ok: true,
      timer: { seconds: 600, refresher: 'uas' },
      headers: [
        ['Session-Expires', '600;refresher=uas'],
        ['Require', 'timer'],
      ],
    });
    expect(decideUasTimer(req('INVITE', [['Session-Expires', '600']]))).toMatchObject({
      timer: { seconds: 600, refresher: 'uas' },
      headers: [['Session-Expires', '600;refresher=uas']],
    });
    expect(
      decideUasTimer(
        req('INVITE', [
          ['Supported', 'timer'],
          ['Min-SE', '2000'],
        ]),
      ),
    ).toMatchObject({ timer: { seconds: 2000, refresher: 'uac' } });
    expect(decideUasTimer(req('INVITE'))).toEqual({ ok: true, headers: [] });
  });

  it('schedules refresh at half the interval and expiry before the end', () => {
    expect(timerSchedule({ seconds: 1800 }, true)).toEqual({ refreshAtMs: 900_000, expireAtMs: 1_768_000 });
    expect(timerSchedule({ seconds: 90 }, false)).toEqual({ expireAtMs: 60_000 });
  });
});

describe('REFER', () => {
  it('reads Refer-To, with Replaces for attended transfer', () => {
    const blind = parseReferTo(req('REFER', [['Refer-To', '<sip:carol@example.com>']]))!;
    expect(formatUri(blind.target.uri)).toBe('sip:carol@example.com');
    expect(blind.replaces).toBeUndefined();
    const attended = parseReferTo(
      req('REFER', [['Refer-To', '<sip:carol@example.com?Replaces=abc%40h%3Bto-tag%3D1%3Bfrom-tag%3D2>']]),
    )!;
    expect(attended.replaces).toBe('abc@h;to-tag=1;from-tag=2');
    expect(parseReferTo(req('REFER'))).toBeUndefined();
    expect(parseReferTo(req('REFER', [['Refer-To', '<sip:broken']]))).toBeUndefined();
  });

  it('writes and reads sipfrag NOTIFYs', () => {
    const notify = req('NOTIFY', referNotifyHeaders(7, 180), sipfrag(180, 'Ringing'));
    expect(parseSipfragStatus(notify)).toBe(180);
    expect(referNotifyHeaders(7, 200)).toContainEqual(['Subscription-State', 'terminated;reason=noresource']);
    expect(referNotifyHeaders(7, 100)).toContainEqual(['Subscription-State', 'active;expires=60']);
    expect(referNotifyHeaders(7, 100)).toContainEqual(['Event', 'refer;id=7']);
    expect(parseSipfragStatus(createReply(notify, 200, 'OK'))).toBeUndefined();
  });
});

describe('after a 422 to our request (RFC 4028 7.4)', () => {
  it("asks for the largest Min-SE, ours or the 422's, keeping the refresher; nothing to raise, no retry", () => {
    const ours = req('INVITE', [
      ['Session-Expires', '1800;refresher=uac'],
      ['Min-SE', '2400'],
      ['Supported', 'timer'],
    ]);
    const retry = retryAfter422(
      ours,
      createReply(ours, 422, 'Too Small', { headers: [['Min-SE', '2000;x=1']] }),
      'z9hG4bKnew',
    )!;
    expect(getHeader(retry, 'Session-Expires')).toBe('2400;refresher=uac');
    expect(getHeaders(retry, 'Min-SE')).toEqual(['2400']);
    expect(retry.cseq.seq).toBe(8);
    expect(retry.via[0]!.branch).toBe('z9hG4bKnew');
    const bigger = retryAfter422(
      ours,
      createReply(ours, 422, 'Too Small', { headers: [['Min-SE', '3600']] }),
      'b',
    )!;
    expect(getHeader(bigger, 'Session-Expires')).toBe('3600;refresher=uac');
    expect(getHeader(bigger, 'Min-SE')).toBe('3600');
    const small = req('INVITE', [['Session-Expires', '1800']]);
    expect(
      retryAfter422(small, createReply(small, 422, 'x', { headers: [['Min-SE', '1800']] }), 'b'),
    ).toBeUndefined();
    expect(
      retryAfter422(small, createReply(small, 422, 'x', { headers: [['Min-SE', 'soon']] }), 'b'),
    ).toBeUndefined();
    const plain = req('INVITE');
    expect(
      retryAfter422(plain, createReply(plain, 422, 'x', { headers: [['Min-SE', '3600']] }), 'b'),
    ).toBeUndefined();
    expect([parseMinSE(' 90 '), parseMinSE('120;p=1'), parseMinSE(''), parseMinSE(undefined)]).toEqual([
      90,
      120,
      undefined,
      undefined,
    ]);
  });
});
