// RFC 4475 torture messages: for each of the 49, the outcome INDEX.md asks for, and for the valid
// ones the meaning that must come out of them.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getHeader, getHeaderList, getHeaders } from './access.js';
import { isRfc3261Branch } from './headers.js';
import { buildErrorResponse } from './error-response.js';
import { SipParseError } from './errors.js';
import { classifyInbound } from './inbound.js';
import { parseMessage } from './parse.js';
import type { SipRequest, SipResponse } from './types.js';
import type { SipUri } from './uri.js';
import { DEFAULT_POLICY, validateRequest } from './validate.js';

const DIR = new URL('../../../../test/fixtures/rfc4475/', import.meta.url);
const fixture = (name: string): Buffer => readFileSync(new URL(`${name}.dat`, DIR));
const req = (name: string): SipRequest => parseMessage(fixture(name)) as SipRequest;
const res = (name: string): SipResponse => parseMessage(fixture(name)) as SipResponse;
const sip = (u: unknown): SipUri => u as SipUri;

/** INDEX.md, as outcomes of classifyInbound: 'accept', 'discard' or the status of the response. */
const EXPECTED: Record<string, 'accept' | 'discard' | number> = {
  wsinv: 'accept',
  intmeth: 'accept',
  esc01: 'accept',
  escnull: 'accept',
  esc02: 'accept',
  lwsdisp: 'accept',
  longreq: 'accept',
  dblreq: 'accept',
  semiuri: 'accept',
  transports: 'accept',
  mpart01: 'accept',
  unreason: 'accept',
  noreason: 'accept',
  badinv01: 400,
  clerr: 400,
  ncl: 400,
  scalar02: 400,
  scalarlg: 'discard',
  quotbal: 400,
  ltgtruri: 400,
  lwsruri: 400,
  lwsstart: 400,
  trws: 400,
  escruri: 400,
  baddate: 'accept',
  regbadct: 400,
  badaspec: 400,
  baddn: 400,
  badvers: 505,
  mismatch01: 400,
  mismatch02: 400,
  bigcode: 'discard',
  badbranch: 'accept',
  insuf: 400,
  unkscm: 416,
  novelsc: 416,
  unksm2: 'accept',
  bext01: 420,
  invut: 415,
  regaut01: 'accept',
  multi01: 400,
  mcl01: 400,
  bcast: 'discard',
  zeromf: 'accept',
  cparam01: 'accept',
  cparam02: 'accept',
  regescrt: 'accept',
  sdp01: 406,
  inv2543: 'accept',
};

function outcome(name: string): 'accept' | 'discard' | number {
  const r = classifyInbound(fixture(name));
  return r.action === 'respond' ? r.status : r.action;
}

describe('RFC 4475 outcomes', () => {
  it('covers all 49 fixtures', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.dat'));
    expect(files).toHaveLength(49);
    expect(Object.keys(EXPECTED).sort()).toEqual(files.map((f) => f.replace(/\.dat$/, '')).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name} → ${expected}`, () => expect(outcome(name)).toBe(expected));
  }
});

describe('RFC 4475 valid messages: meaning', () => {
  it('wsinv: short tortuous INVITE', () => {
    const m = req('wsinv');
    expect(m.method).toBe('INVITE');
    expect(sip(m.uri)).toMatchObject({ user: 'vivekg', host: 'chair-dnrc.example.com' });
    expect(sip(m.uri).params).toEqual(new Map([['unknownparam', null]]));
    expect(sip(m.to.uri).host).toBe('chair-dnrc.example.com');
    expect(m.to.tag).toBe('1918181833n');
    expect(m.to.displayName).toBeUndefined();
    expect(m.from.displayName).toBe('J Rosenberg \\"');
    expect(m.from.tag).toBe('98asjd8');
    expect(m.maxForwards).toBe(68);
    expect(m.callId).toBe('wsinv.ndaksdj@192.0.2.1');
    expect(m.cseq).toEqual({ seq: 9, method: 'INVITE' });
    expect(m.contentLength).toBe(150);
    expect(m.body).toHaveLength(150);
    expect(m.via).toHaveLength(3);
    expect(m.via.map((v) => [v.transport, v.host, v.branch])).toEqual([
      ['UDP', '192.0.2.2', '390skdjuw'],
      ['TCP', 'spindle.example.com', 'z9hG4bK9ikj8'],
      ['UDP', '192.168.255.111', 'z9hG4bK30239'],
    ]);
    expect(getHeader(m, 'Subject')).toBe('');
    expect(getHeader(m, 'NewFangledHeader')).toBe('newfangled value continued newfangled value');
    expect(getHeader(m, 'UnknownHeaderWithUnusualValue')).toBe(';;,,;;,;');
    expect(getHeader(m, 'Content-Type')).toBe('application/sdp');
    expect(m.route).toHaveLength(1);
    expect(sip(m.route[0].uri).host).toBe('services.example.com');
    expect(sip(m.route[0].uri).params).toEqual(
      new Map([
        ['lr', null],
        ['unknownwith', 'value'],
        ['unknown-no-value', null],
      ]),
    );
    expect(m.contact).toHaveLength(1);
    expect(m.contact[0].displayName).toBe('Quoted string ""');
    expect(m.contact[0].params).toEqual(
      new Map([
        ['newparam', 'newvalue'],
        ['secondparam', null],
        ['q', '0.33'],
      ]),
    );
  });

  it('intmeth: wide range of valid characters', () => {
    const m = req('intmeth');
    expect(m.method).toBe("!interesting-Method0123456789_*+`.%indeed'~");
    expect(m.cseq.method).toBe(m.method);
    expect(sip(m.uri).user).toBe("1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*");
    expect(sip(m.uri).password).toBe("&it+has=1,weird!*pas$wo~d_too.(doesn't-it)");
    expect(sip(m.uri).host).toBe('example.com');
    expect(m.via[0].branch).toBe("z9hG4bK-.!%66*_+`'~");
    expect(m.to.displayName).toBe('BEL:\x07 NUL:\x00 DEL:\x7f');
    expect(m.from.displayName).toBe("token1~` token2'+_ token3*%!.-");
    expect(m.from.tag).toBe("_token~1'+`*%!-.");
    expect(m.from.params.get("fromparam''~+*_!.-%")).toBe('"работающий"');
    expect(m.callId).toBe('intmeth.word%ZK-!.*_+\'@word`~)(><:\\/"][?}{');
    expect(getHeader(m, "extensionHeader-!.%*+_`'~")).toBe('\ufeff大停電');
  });

  it('esc01: escapes resolved in URIs', () => {
    const m = req('esc01');
    expect(sip(m.uri)).toMatchObject({ user: 'sips:user@example.com', host: 'example.net' });
    expect(sip(m.to.uri).user).toBe('user');
    expect(sip(m.from.uri).user).toBe('I have spaces');
    expect(m.callId).toBe('esc01.239409asdfakjkn23onasd0-3234');
    expect(sip(m.contact[0].uri).user).toBe('caller');
    expect(sip(m.contact[0].uri).params).toEqual(
      new Map([
        ['lr', null],
        ['name', 'value%41'],
      ]),
    );
    expect(getHeader(m, 'Content-Type')).toBe('application/sdp');
  });

  it('escnull: escaped NULs stay in the user part', () => {
    const m = req('escnull');
    expect(sip(m.to.uri).user).toBe('null-\0-null');
    expect(m.contact.map((c) => sip(c.uri).user)).toEqual(['\0', '\0\0']);
  });

  it('esc02: % outside URIs is not an escape', () => {
    const m = req('esc02');
    expect(m.method).toBe('RE%47IST%45R');
    expect(m.to.displayName).toBe('%Z%45');
    expect(m.via[0].branch).toBe('z9hG4bK209%fzsnel234');
    expect(m.contact.map((c) => sip(c.uri).host)).toEqual(['host1.example.com', 'host3.example.com']);
    expect(getHeader(m, 'C%6Fntact')).toBe('<sip:alias2@host2.example.com>');
  });

  it('lwsdisp: display name right against "<"', () => {
    const m = req('lwsdisp');
    expect(m.from.displayName).toBe('caller');
    expect(m.from.tag).toBe('323');
  });

  it('longreq: long values', () => {
    const m = req('longreq');
    expect(m.to.displayName).toBe(`I have a user name of ${'extreme'.repeat(10)} proportion`);
    expect(sip(m.to.uri).port).toBe(6000);
    expect(sip(m.to.uri).params.get('unknownparam1')).toBe(`very${'long'.repeat(20)}value`);
    expect(sip(m.to.uri).params.get(`longparam${'name'.repeat(25)}`)).toBe('shortvalue');
    expect(sip(m.to.uri).params.get(`very${'long'.repeat(25)}parameternamewithnovalue`)).toBeNull();
    expect(sip(m.from.uri).user).toBe('amazinglylongcallername'.repeat(5));
    expect(m.from.tag).toBe('1' + '298'.repeat(50) + '2424');
    expect(m.from.params.get(`unknownheaderparam${'name'.repeat(20)}`)).toBe(
      `unknowheaderparam${'value'.repeat(15)}`,
    );
    expect(m.callId).toBe(`longreq.one${'really'.repeat(20)}longcallid`);
    const unknown = getHeader(m, `Unknown-${'Long'.repeat(20)}-Name`)!;
    expect(unknown).toBe(
      `unknown-${'long'.repeat(20)}-value; unknown-${'long'.repeat(20)}-parameter-name = unknown-${'long'.repeat(20)}-parameter-value`,
    );
    expect(unknown).toHaveLength(306);
    expect(m.via).toHaveLength(34);
    expect(m.via[0].host).toBe('sip33.example.com');
    expect(m.via[33].received).toBe('192.0.2.5');
    expect(m.via[33].branch).toBe(`very${'long'.repeat(50)}branchvalue`);
    expect(m.body).toHaveLength(150);
  });

  it('dblreq: only the first message of the datagram', () => {
    const m = req('dblreq');
    expect(m.method).toBe('REGISTER');
    expect(m.callId).toBe('dblreq.0ha0isndaksdj99sdfafnl3lk233412');
    expect(m.contentLength).toBe(0);
    expect(m.body).toHaveLength(0);
  });

  it('semiuri: semicolons in the user part', () => {
    const m = req('semiuri');
    expect(sip(m.uri)).toMatchObject({ user: 'user;par=u@example.net', host: 'example.com' });
    expect(sip(m.uri).params.size).toBe(0);
    expect(getHeaderList(m, 'Accept')).toEqual([
      'application/sdp',
      'application/pkcs7-mime',
      'multipart/mixed',
      'multipart/signed',
      'message/sip',
      'message/sipfrag',
    ]);
  });

  it('transports: known and unknown transports', () => {
    expect(req('transports').via.map((v) => v.transport)).toEqual(['UDP', 'SCTP', 'TLS', 'UNKNOWN', 'TCP']);
  });

  it('mpart01: multipart body kept byte for byte', () => {
    const m = req('mpart01');
    const raw = fixture('mpart01');
    expect(m.body).toHaveLength(553);
    expect(Buffer.from(m.body).equals(raw.subarray(raw.length - 553))).toBe(true);
    expect(Buffer.from(m.body).includes(Buffer.from([0x0a, 0x0a]))).toBe(false);
    expect([...m.body].some((b, i) => b === 0x0a && m.body[i - 1] !== 0x0d)).toBe(true);
    expect(getHeader(m, 'Content-Type')).toBe('multipart/mixed;boundary=7a9cbec02ceef655');
  });

  it('unreason and noreason: unusual and empty reason phrases', () => {
    const u = res('unreason');
    expect(u.status).toBe(200);
    expect(u.reason).toBe('= 2**3 * 5**2 но сто девяносто девять - простое');
    expect(u.body).toHaveLength(154);
    const n = res('noreason');
    expect(n.status).toBe(100);
    expect(n.reason).toBe('');
  });

  it('baddate: the bad Date is ignored, not fatal', () => {
    const v = validateRequest(req('baddate'));
    expect(v).toEqual({ ok: true, notes: ['ignored an invalid Date'] });
    expect(getHeader(req('mpart01'), 'Date')).toBe('Sat, 15 Oct 2005 04:44:56 GMT');
    expect(validateRequest(req('mpart01'))).toMatchObject({
      ok: true,
      date: Date.UTC(2005, 9, 15, 4, 44, 56),
    });
  });

  it('badbranch: a bare magic cookie falls back to RFC 2543 matching', () => {
    const m = req('badbranch');
    expect(m.via[0].branch).toBe('z9hG4bK');
    expect(isRfc3261Branch(m.via[0].branch)).toBe(false);
  });

  it('unksm2: unknown schemes in header fields are kept opaque', () => {
    const m = req('unksm2');
    expect(m.to.uri).toEqual({ kind: 'other', scheme: 'isbn', opaque: '2983792873' });
    expect(m.from.uri).toEqual({ kind: 'other', scheme: 'http', opaque: '//www.example.com' });
    expect(m.from.tag).toBe('3234233');
    expect(m.contact[0].uri).toEqual({ kind: 'other', scheme: 'name', opaque: 'John_Smith' });
  });

  it('zeromf: Max-Forwards 0 is answered by a UAS', () => {
    const m = req('zeromf');
    expect(m.maxForwards).toBe(0);
    expect(validateRequest(m, { ...DEFAULT_POLICY, role: 'proxy' }).ok).toBe(true);
  });

  it('cparam01 and cparam02: where the parameter belongs', () => {
    const a = req('cparam01').contact[0];
    expect(sip(a.uri).params.size).toBe(0);
    expect(a.params).toEqual(new Map([['unknownparam', null]]));
    const b = req('cparam02').contact[0];
    expect(sip(b.uri).params).toEqual(new Map([['unknownparam', null]]));
    expect(b.params.size).toBe(0);
  });

  it('regescrt: escaped header in a Contact URI', () => {
    const c = req('regescrt').contact[0];
    expect(sip(c.uri).headers).toEqual([['Route', '<sip:sip.example.com>']]);
  });

  it('inv2543: RFC 2543 syntax', () => {
    const m = req('inv2543');
    expect(m.via[0].branch).toBeUndefined();
    expect(m.maxForwards).toBeUndefined();
    expect(m.contentLength).toBeUndefined();
    expect(m.body).toHaveLength(105);
    expect(m.from.tag).toBeUndefined();
    expect(sip(m.from.uri).params.get('user')).toBe('phone');
    expect(sip(m.recordRoute[0].uri).params.get('maddr')).toBe('ss1.example.com');
  });

  it('regaut01: an unknown Authorization scheme parses', () => {
    expect(getHeaders(req('regaut01'), 'Authorization')).toEqual(['NoOneKnowsThisScheme opaque-data=here']);
  });
});

describe('RFC 4475 invalid messages: what the answer carries', () => {
  const respond = (name: string) => {
    const r = classifyInbound(fixture(name));
    if (r.action !== 'respond') throw new Error(`${name} was not answered`);
    return r;
  };
  const answer = (name: string): SipResponse => {
    const r = respond(name);
    const bytes = buildErrorResponse(r.request ?? r.error!, r.status, r.reason, { headers: r.headers });
    return parseMessage(bytes!) as SipResponse;
  };

  it('parse errors say why and keep the pieces a response needs', () => {
    const e = respond('badinv01').error!;
    expect(e).toBeInstanceOf(SipParseError);
    expect(e.partial).toMatchObject({
      kind: 'request',
      method: 'INVITE',
      callId: 'badinv01.0ha0isndaksdjasdf3234nas',
    });
    const a = answer('badinv01');
    expect(a.status).toBe(400);
    expect(a.via[0]).toMatchObject({ transport: 'UDP', host: '192.0.2.15' });
    expect(a.cseq).toEqual({ seq: 8, method: 'INVITE' });
    expect(a.to.tag).toMatch(/^[0-9a-f]{12}$/);
  });

  it.each(['clerr', 'ncl', 'scalar02', 'ltgtruri', 'lwsruri', 'lwsstart', 'trws', 'badaspec', 'insuf'])(
    '%s gets a 400 routed by its Via, copying what could be read',
    (name) => {
      const r = respond(name);
      expect(r.status).toBe(400);
      const text = buildErrorResponse(r.error!, r.status, r.reason)!.toString();
      const raw = fixture(name).toString('latin1');
      expect(text.startsWith('SIP/2.0 400 Bad Request\r\n')).toBe(true);
      expect(raw).toContain(/\r\n(Via: [^\r]*)\r\n/.exec(text)![1]);
      const callId = /\r\nCall-ID: ([^\r]*)/.exec(raw)?.[1];
      if (callId !== undefined) expect(text).toContain(`Call-ID: ${callId}`);
      // The overlarge CSeq of scalar02 and the missing fields of insuf are left out, not echoed.
      if (name === 'scalar02') expect(text).not.toContain('CSeq');
      if (name === 'insuf') expect(text).not.toMatch(/From|To:/);
    },
  );

  it('badvers gets 505, unkscm and novelsc 416', () => {
    expect(answer('badvers').status).toBe(505);
    expect(answer('unkscm').status).toBe(416);
    expect(answer('novelsc').status).toBe(416);
  });

  it('bext01 gets 420 listing what the UAS does not support', () => {
    expect(respond('bext01').headers).toEqual([
      { name: 'Unsupported', value: 'nothingSupportsThis, nothingSupportsThisEither' },
    ]);
    expect(getHeader(answer('bext01'), 'Unsupported')).toBe('nothingSupportsThis, nothingSupportsThisEither');
    const proxy = classifyInbound(fixture('bext01'), { policy: { ...DEFAULT_POLICY, role: 'proxy' } });
    expect(proxy).toMatchObject({
      status: 420,
      headers: [{ name: 'Unsupported', value: 'noProxiesSupportThis, norDoAnyProxiesSupportThis' }],
    });
  });

  it('invut gets 415 with Accept', () => {
    const a = answer('invut');
    expect(a.status).toBe(415);
    expect(getHeader(a, 'Accept')).toContain('application/sdp');
  });

  it('mismatch01, mismatch02, escruri and multi01 say what was wrong', () => {
    expect(respond('mismatch01').why).toMatch(/CSeq method INVITE does not match OPTIONS/);
    expect(respond('mismatch02').why).toMatch(/CSeq method INVITE does not match NEWMETHOD/);
    expect(respond('escruri').why).toMatch(/headers are not allowed/);
    expect(respond('multi01').why).toMatch(/more than one/);
    expect(respond('mcl01').why).toMatch(/more than one Content-Length/);
  });

  it('responses that cannot be read are dropped, never answered', () => {
    for (const name of ['scalarlg', 'bigcode']) {
      expect(() => parseMessage(fixture(name))).toThrow(SipParseError);
      expect(buildErrorResponse(fixture(name), 400, 'Bad Request')).toBeNull();
    }
    expect(res('bcast').via[1].host).toBe('255.255.255.255');
  });
});
