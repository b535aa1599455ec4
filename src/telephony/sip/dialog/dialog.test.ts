// Dialogs on both sides: route sets (order, loose and strict routing), tags, CSeq handling,
// target refresh and the responses that end a dialog.
import { describe, expect, it } from 'vitest';
import { createReply, createRequest } from '../message/build.js';
import { getHeaders } from '../message/access.js';
import { formatUri } from '../message/uri.js';
import type { SipRequest } from '../message/types.js';
import type { Dialog } from './dialog.js';
import {
  dialogFromUac,
  dialogFromUas,
  dialogIdOf,
  dialogKey,
  isDialog,
  receiveInDialog,
  requestInDialog,
  responseInDialog,
} from './dialog.js';

function invite(extra: Array<[string, string]> = []): SipRequest {
  return createRequest({
    method: 'INVITE',
    uri: 'sip:bob@biloxi.example.com',
    headers: [
      ['Via', 'SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8'],
      ['Max-Forwards', '70'],
      ['From', '"Alice" <sip:alice@atlanta.example.com>;tag=1928301774'],
      ['To', 'Bob <sip:bob@biloxi.example.com>'],
      ['Call-ID', 'a84b4c76e66710'],
      ['CSeq', '314159 INVITE'],
      ['Contact', '<sip:alice@pc33.atlanta.example.com>'],
      ...extra,
    ],
  });
}

const must = (d: ReturnType<typeof dialogFromUas>): Dialog => {
  if (!isDialog(d)) throw new Error(d.reason);
  return d;
};

describe('UAS dialog', () => {
  const req = invite([['Record-Route', '<sip:p1.example.com;lr>, <sip:p2.example.com;lr>']]);
  const ok = createReply(req, 200, 'OK', { toTag: 'b0b', headers: [['Contact', '<sip:bob@192.0.2.4>']] });
  const d = must(dialogFromUas(req, ok));

  it('takes its id, sequence and route set from the INVITE', () => {
    expect(d.id).toEqual({ callId: 'a84b4c76e66710', localTag: 'b0b', remoteTag: '1928301774' });
    expect(d.state).toBe('confirmed');
    expect(d.remoteSeq).toBe(314159);
    expect(formatUri(d.remoteTarget)).toBe('sip:alice@pc33.atlanta.example.com');
    expect(d.routeSet.map((r) => formatUri(r.uri))).toEqual([
      'sip:p1.example.com;lr',
      'sip:p2.example.com;lr',
    ]);
    expect(dialogKey(dialogIdOf(req, false))).toBe('a84b4c76e66710||1928301774');
  });

  it('builds a BYE through the route set with tags swapped', () => {
    const { request, dialog } = requestInDialog(d, {
      method: 'BYE',
      via: 'SIP/2.0/UDP 192.0.2.4;branch=z9hG4bKbye1',
    });
    expect(formatUri(request.uri)).toBe('sip:alice@pc33.atlanta.example.com');
    expect(getHeaders(request, 'Route')).toEqual(['<sip:p1.example.com;lr>', '<sip:p2.example.com;lr>']);
    expect(request.from).toMatchObject({ displayName: 'Bob', tag: 'b0b' });
    expect(request.to).toMatchObject({ displayName: 'Alice', tag: '1928301774' });
    expect(request.cseq).toEqual({ seq: 1, method: 'BYE' });
    expect(dialog.localSeq).toBe(1);
    expect(dialogKey(dialogIdOf(request, true))).toBe(dialogKey(d.id));
  });

  it('rejects out-of-order requests, refreshes the target on re-INVITE, ends on BYE', () => {
    const reinvite = createRequest({
      method: 'INVITE',
      uri: 'sip:bob@192.0.2.4',
      headers: [
        ...invite().headers.filter((h) => h.name !== 'CSeq' && h.name !== 'Contact'),
        ['CSeq', '314160 INVITE'],
        ['Contact', '<sip:alice@198.51.100.9>'],
      ],
    });
    const r = receiveInDialog(d, reinvite);
    if (!r.ok) throw new Error(r.reason);
    expect(formatUri(r.dialog.remoteTarget)).toBe('sip:alice@198.51.100.9');
    expect(r.dialog.remoteSeq).toBe(314160);
    const old = createRequest({
      method: 'INFO',
      uri: 'sip:bob@192.0.2.4',
      headers: [...invite().headers.filter((h) => h.name !== 'CSeq'), ['CSeq', '314158 INFO']],
    });
    expect(receiveInDialog(r.dialog, old)).toEqual({
      ok: false,
      status: 500,
      reason: 'Server Internal Error',
    });
    const bye = createRequest({
      method: 'BYE',
      uri: 'sip:bob@192.0.2.4',
      headers: [...invite().headers.filter((h) => h.name !== 'CSeq'), ['CSeq', '314161 BYE']],
    });
    const ended = receiveInDialog(r.dialog, bye);
    expect(ended.ok && ended.dialog.state).toBe('terminated');
  });
});

describe('UAC dialog', () => {
  const req = invite();
  const ringing = createReply(req, 180, 'Ringing', {
    toTag: 'b0b',
    headers: [
      ['Record-Route', '<sip:p2.example.com;lr>'],
      ['Record-Route', '<sip:p1.example.com;lr>'],
      ['Contact', '<sip:bob@192.0.2.4>'],
    ],
  });

  it('starts early from a tagged 1xx with the route set reversed, confirmed by the 2xx', () => {
    const d = must(dialogFromUac(req, ringing));
    expect(d.state).toBe('early');
    expect(d.localSeq).toBe(314159);
    expect(d.routeSet.map((r) => formatUri(r.uri))).toEqual([
      'sip:p1.example.com;lr',
      'sip:p2.example.com;lr',
    ]);
    const ok = createReply(req, 200, 'OK', { toTag: 'b0b', headers: [['Contact', '<sip:bob@192.0.2.44>']] });
    const confirmed = responseInDialog(d, req, ok);
    expect(confirmed.state).toBe('confirmed');
    expect(formatUri(confirmed.remoteTarget)).toBe('sip:bob@192.0.2.44');
    const ack = requestInDialog(confirmed, {
      method: 'ACK',
      via: 'SIP/2.0/UDP pc33;branch=z9hG4bKack',
      cseq: 314159,
    });
    expect(ack.request.cseq).toEqual({ seq: 314159, method: 'ACK' });
    expect(ack.dialog.localSeq).toBe(314159);
    const bye = requestInDialog(ack.dialog, { method: 'BYE', via: 'SIP/2.0/UDP pc33;branch=z9hG4bKbye' });
    expect(bye.request.cseq.seq).toBe(314160);
    expect(responseInDialog(bye.dialog, bye.request, createReply(bye.request, 481, 'Gone')).state).toBe(
      'terminated',
    );
  });

  it('routes strictly through an RFC 2543 proxy without lr', () => {
    const strict = createReply(req, 200, 'OK', {
      toTag: 'b0b',
      headers: [
        ['Record-Route', '<sip:old.example.com>'],
        ['Contact', '<sip:bob@192.0.2.4>'],
      ],
    });
    const d = must(dialogFromUac(req, strict));
    const { request } = requestInDialog(d, { method: 'BYE', via: 'SIP/2.0/UDP pc33;branch=z9hG4bKs' });
    expect(formatUri(request.uri)).toBe('sip:old.example.com');
    expect(getHeaders(request, 'Route')).toEqual(['<sip:bob@192.0.2.4>']);
  });

  it('needs a tag and a Contact', () => {
    expect(dialogFromUac(req, createReply(req, 180, 'Ringing'))).toMatchObject({ ok: false, status: 400 });
  });
});
