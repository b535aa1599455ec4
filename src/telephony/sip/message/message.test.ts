// Unit tests of the message layer beyond the torture set: limits, framing, bad input with and
// without a readable Via, building replies and error responses.
import { describe, expect, it } from 'vitest';
import { getHeader, getHeaderList, getHeaders } from './access.js';
import { createReply, createRequest } from './build.js';
import { buildErrorResponse } from './error-response.js';
import { SipParseError } from './errors.js';
import { StreamFramer } from './framer.js';
import { classifyInbound } from './inbound.js';
import { parseMessage } from './parse.js';
import { serialize } from './serialize.js';
import type { SipRequest, SipResponse } from './types.js';
import { DEFAULT_POLICY, validateRequest, validateResponse } from './validate.js';

const HEAD = [
  'OPTIONS sip:bob@example.com SIP/2.0',
  'Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport',
  'Max-Forwards: 70',
  'To: Bob <sip:bob@example.com>',
  'From: "Alice" <sip:alice@example.com>;tag=1928301774',
  'Call-ID: a84b4c76e66710',
  'CSeq: 314159 OPTIONS',
];
const wire = (lines: string[], body = ''): string =>
  [...lines, `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
const ok = wire(HEAD);

function parseError(input: string | Uint8Array, options?: Parameters<typeof parseMessage>[1]): SipParseError {
  try {
    parseMessage(input, options);
  } catch (e) {
    if (e instanceof SipParseError) return e;
    throw e;
  }
  throw new Error('parsed');
}

describe('parser basics', () => {
  it('reads the typed view of a plain request', () => {
    const m = parseMessage(ok) as SipRequest;
    expect(m.via[0]).toMatchObject({ transport: 'UDP', host: '192.0.2.1', port: 5060, rport: true });
    expect(m.to).toMatchObject({ displayName: 'Bob' });
    expect(m.from).toMatchObject({ displayName: 'Alice', tag: '1928301774' });
    expect(m.cseq).toEqual({ seq: 314159, method: 'OPTIONS' });
  });

  it('finds unknown header fields whatever their case', () => {
    const m = parseMessage(wire([...HEAD, 'X-Custom-Thing: 1', 'x-custom-thing: 2']));
    expect(getHeaders(m, 'X-CUSTOM-THING')).toEqual(['1', '2']);
    expect(getHeader(m, 'call-id')).toBe('a84b4c76e66710');
    expect(getHeader(m, 'i')).toBe('a84b4c76e66710');
  });

  it('skips CRLFs before the start line', () => {
    expect(parseMessage('\r\n\r\n' + ok).kind).toBe('request');
  });

  it('requires Content-Length on streams only', () => {
    const noCl = [...HEAD, '', ''].join('\r\n');
    expect(parseMessage(noCl).body).toHaveLength(0);
    expect(parseError(noCl, { requireContentLength: true }).status).toBe(400);
  });

  it('keeps Contact "*" apart from addresses', () => {
    const register = HEAD.map((l) => l.replace('OPTIONS sip:bob@example.com', 'REGISTER sip:example.com'));
    const m = parseMessage(
      wire([...register.map((l) => l.replace('314159 OPTIONS', '1 REGISTER')), 'Contact: *']),
    );
    expect(m.contactWildcard).toBe(true);
    expect(m.contact).toEqual([]);
    expect(parseError(wire([...HEAD, 'Contact: *', 'Contact: <sip:a@b>'])).status).toBe(400);
  });

  it('splits comma lists outside quotes and brackets', () => {
    const m = parseMessage(wire([...HEAD, 'Contact: "a, b" <sip:a@x;p=1>;q=0.5, <sip:b@y>']));
    expect(m.contact.map((c) => c.displayName)).toEqual(['a, b', undefined]);
    expect(getHeaderList(m, 'Contact')).toHaveLength(2);
  });

  it('reads IPv6 hosts and tel URIs', () => {
    const m = parseMessage(
      wire([
        'INVITE tel:+1-201-555-0123;phone-context=example.com SIP/2.0',
        ...HEAD.slice(1).map((l) => l.replace('OPTIONS', 'INVITE')),
        'Contact: <sip:[2001:db8::1]:5080;transport=tcp>',
      ]),
    ) as SipRequest;
    expect(m.uri).toEqual({
      kind: 'tel',
      scheme: 'tel',
      number: '+1-201-555-0123',
      params: new Map([['phone-context', 'example.com']]),
    });
    expect(m.contact[0].uri).toMatchObject({
      host: '[2001:db8::1]',
      port: 5080,
      params: new Map([['transport', 'tcp']]),
    });
  });
});

describe('bad input', () => {
  it.each([
    ['a header line without a colon', [...HEAD, 'Garbage']],
    [
      'an unterminated quoted string',
      [...HEAD.slice(0, 4), 'From: "Alice <sip:alice@example.com>;tag=1', ...HEAD.slice(5)],
    ],
    ['a bad CSeq', [...HEAD.slice(0, 6), 'CSeq: x OPTIONS']],
    ['a Max-Forwards over 255', [...HEAD.slice(0, 2), 'Max-Forwards: 256', ...HEAD.slice(3)]],
    ['a bad port in a URI', [...HEAD.slice(0, 3), 'To: <sip:bob@example.com:70000>', ...HEAD.slice(4)]],
    ['a bad escape in a URI', [...HEAD.slice(0, 3), 'To: <sip:b%zzob@example.com>', ...HEAD.slice(4)]],
    ['a continuation line first', [HEAD[0], ' folded', ...HEAD.slice(1)]],
    ['a missing Call-ID', HEAD.filter((l) => !l.startsWith('Call-ID'))],
  ])('%s with a readable Via gets 400', (_what, lines) => {
    const e = parseError(wire(lines));
    expect(e).toMatchObject({ action: 'respond', status: 400 });
    const answer = buildErrorResponse(e, e.status, e.reason)!.toString();
    expect(answer).toMatch(
      /^SIP\/2.0 400 Bad Request\r\nVia: SIP\/2.0\/UDP 192.0.2.1:5060;branch=z9hG4bK776asdhds;rport\r\n/,
    );
  });

  it('without a readable Via the message is dropped', () => {
    const e = parseError(
      wire(['OPTIONS sip:bob@example.com SIP/2.0', 'Via: nonsense', ...HEAD.slice(2), 'Bad']),
    );
    expect(e.action).toBe('discard');
    expect(buildErrorResponse(e, 400, 'Bad Request')).toBeNull();
    expect(parseError('').action).toBe('discard');
    expect(parseError('\x00\x01\x02').action).toBe('discard');
  });

  it('a broken ACK or response is never answered', () => {
    const ack = wire([...HEAD.map((l) => l.replace(/OPTIONS/g, 'ACK')), 'Bad']);
    expect(parseError(ack).action).toBe('discard');
    const resp = wire(['SIP/2.0 200 OK', ...HEAD.slice(1), 'Bad']);
    expect(parseError(resp).action).toBe('discard');
  });

  it('bare LF and CR in the header section are errors', () => {
    expect(parseError(ok.replace('Max-Forwards: 70\r\n', 'Max-Forwards: 70\n')).status).toBe(400);
    expect(parseError(ok.replace('Max-Forwards: 70\r\n', 'Max-Forwards: 70\r')).status).toBe(400);
  });
});

describe('limits', () => {
  it('refuses an oversized message with 513', () => {
    const big = wire(HEAD, 'x'.repeat(70_000));
    expect(parseError(big)).toMatchObject({ action: 'respond', status: 513 });
    expect(parseError(ok, { limits: { maxMessageBytes: 100 } }).status).toBe(513);
  });

  it('refuses too many header fields and overlong lines', () => {
    const many = wire([...HEAD, ...Array.from({ length: 300 }, (_, i) => `X-H${i}: v`)]);
    expect(parseError(many)).toMatchObject({ action: 'respond', status: 400 });
    expect(parseMessage(many, { limits: { maxHeaders: 400 } }).headers.length).toBe(307);
    expect(parseError(wire([...HEAD, 'X-Long: ' + 'a'.repeat(9000)])).status).toBe(400);
  });

  it('refuses Content-Length over the size limit with 513', () => {
    expect(parseError(ok.replace('Content-Length: 0', 'Content-Length: 100000')).status).toBe(513);
  });
});

describe('StreamFramer', () => {
  it('yields whole messages from chunks, and keep-alives', () => {
    const body = 'hello';
    const msg = wire([...HEAD, 'Content-Type: text/plain'], body);
    const f = new StreamFramer();
    const all = Buffer.from('\r\n\r\n' + msg + msg);
    const frames = [];
    for (let i = 0; i < all.length; i += 7) frames.push(...f.push(all.subarray(i, i + 7)));
    expect(frames.map((x) => x.kind)).toEqual(['keepalive', 'message', 'message']);
    expect(frames[1]).toMatchObject({ bytes: Buffer.from(msg) });
    expect(f.buffered).toBe(0);
  });

  it('rejects a missing Content-Length, a bad one and an oversized message', () => {
    expect(() => new StreamFramer().push(Buffer.from([...HEAD, '', ''].join('\r\n')))).toThrow(
      /missing Content-Length/,
    );
    expect(() => new StreamFramer().push(Buffer.from(ok.replace('Content-Length: 0', 'l: -1')))).toThrow(
      SipParseError,
    );
    const f = new StreamFramer({ maxMessageBytes: 1000 });
    expect(() => f.push(Buffer.alloc(1200, 0x61))).toThrow(/too large/);
    expect(f.push(Buffer.from(ok))).toEqual([]);
    try {
      new StreamFramer().push(Buffer.from(ok.replace('Content-Length: 0', 'Content-Length: 999999')));
    } catch (e) {
      expect(e).toMatchObject({ action: 'respond', status: 513 });
    }
  });
});

describe('building', () => {
  it('a reply copies the dialog fields and adds the To tag', () => {
    const req = parseMessage(ok) as SipRequest;
    const res = createReply(req, 200, 'OK', { toTag: 'abc', headers: [['Allow', 'INVITE, ACK, BYE']] });
    const back = parseMessage(serialize(res)) as SipResponse;
    expect(back).toEqual(res);
    expect(back.to.tag).toBe('abc');
    expect(back.via).toEqual(req.via);
    expect(getHeader(back, 'Allow')).toBe('INVITE, ACK, BYE');
    expect(createReply(req, 100, 'Trying', { toTag: 'abc' }).to.tag).toBeUndefined();
  });

  it('refuses header injection', () => {
    expect(() =>
      createRequest({ method: 'OPTIONS', uri: 'sip:a@b', headers: [['Subject', 'x\r\nVia: evil']] }),
    ).toThrow(SipParseError);
  });

  it('serializes compact names when asked', () => {
    const text = serialize(parseMessage(ok), { compact: true }).toString();
    expect(text).toContain('\r\nv: SIP/2.0/UDP');
    expect(text).toContain('\r\nl: 0\r\n');
  });

  it('error responses from raw bytes carry the derived To tag and extra headers', () => {
    const raw = ok.replace('CSeq: 314159 OPTIONS', 'CSeq: 314159 INVITE');
    const r = classifyInbound(raw);
    expect(r).toMatchObject({ action: 'respond', status: 400 });
    const a = parseMessage(
      buildErrorResponse(raw, 400, 'Bad Request', { headers: [['Warning', '399 x "y"']] })!,
    ) as SipResponse;
    expect(a.to.tag).toMatch(/^[0-9a-f]{12}$/);
    expect(getHeader(a, 'Warning')).toBe('399 x "y"');
    expect(
      buildErrorResponse(raw, 400, 'Bad Request')!.equals(buildErrorResponse(raw, 400, 'Bad Request')!),
    ).toBe(true);
  });
});

describe('validation', () => {
  const req = (extra: string[], body = '', method = 'OPTIONS'): SipRequest =>
    parseMessage(wire([...HEAD.map((l) => l.replace(/OPTIONS/g, method)), ...extra], body)) as SipRequest;

  it('a proxy answers 483 to Max-Forwards 0 on anything but OPTIONS', () => {
    const m = parseMessage(
      ok.replace('Max-Forwards: 70', 'Max-Forwards: 0').replace(/OPTIONS/g, 'INVITE'),
    ) as SipRequest;
    expect(validateRequest(m, { ...DEFAULT_POLICY, role: 'proxy' })).toMatchObject({
      ok: false,
      status: 483,
    });
    expect(validateRequest(m).ok).toBe(true);
  });

  it('ignores Require on ACK and CANCEL, honours known tags', () => {
    expect(validateRequest(req(['Require: foo'], '', 'CANCEL')).ok).toBe(true);
    expect(validateRequest(req(['Require: timer, 100rel'])).ok).toBe(true);
    expect(validateRequest(req(['Require: foo']))).toMatchObject({ status: 420 });
  });

  it('rejects unknown encodings, repeated single-value fields and bad Expires', () => {
    expect(
      validateRequest(req(['Content-Type: application/sdp', 'Content-Encoding: gzip'], 'v=0')),
    ).toMatchObject({
      status: 415,
      headers: [{ name: 'Accept-Encoding', value: 'identity' }],
    });
    expect(validateRequest(req(['Expires: 1', 'Expires: 2']))).toMatchObject({ status: 400 });
    expect(validateRequest(req(['Expires: -1']))).toMatchObject({ status: 400 });
    expect(validateRequest(req(['Expires: 4294967296']))).toMatchObject({ status: 400 });
    expect(validateRequest(req(['Expires: 4294967295'])).ok).toBe(true);
  });

  it('honours Accept wildcards for INVITE answers', () => {
    expect(validateRequest(req(['Accept: application/*'], '', 'INVITE')).ok).toBe(true);
    expect(validateRequest(req(['Accept: text/html'], '', 'INVITE'))).toMatchObject({ status: 406 });
  });

  it('a UAC drops responses with two Vias', () => {
    const r = parseMessage(
      wire(['SIP/2.0 200 OK', ...HEAD.slice(1), 'Via: SIP/2.0/UDP 192.0.2.9;branch=z9hG4bKx']),
    );
    expect(validateResponse(r)).toMatchObject({ ok: false });
    expect(validateResponse(r, 'proxy')).toEqual({ ok: true });
  });
});
