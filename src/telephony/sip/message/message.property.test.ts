// Property tests: what we build and serialize parses back to the same value, and no input at all
// makes the parser throw anything but SipParseError.
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequest, createResponse } from './build.js';
import type { HeaderInit } from './build.js';
import { SipParseError } from './errors.js';
import { StreamFramer } from './framer.js';
import type { NameAddr, Via } from './headers.js';
import { formatNameAddr, formatVia } from './headers.js';
import { parseMessage } from './parse.js';
import { serialize } from './serialize.js';
import type { Params, SipUri, TelUri } from './uri.js';
import { formatUri, parseUri } from './uri.js';

const DIR = new URL('../../../../test/fixtures/rfc4475/', import.meta.url);
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.dat'))
  .map((f) => readFileSync(new URL(f, DIR)));

const token = fc.stringMatching(/^[A-Za-z0-9.!%*_+`'~-]{1,10}$/);
const lowerName = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,6}[a-z0-9])?$/);
const host = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.')),
  fc.ipV4(),
  fc.ipV6().map((a) => `[${a}]`),
);
const port = fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined });
const uriParams: fc.Arbitrary<Params> = fc
  .array(fc.tuple(lowerName, fc.option(text, { nil: null })), { maxLength: 3 })
  .map((e) => new Map(e));
const headerParams: fc.Arbitrary<Params> = fc
  .array(
    fc.tuple(
      lowerName.filter((n) => n !== 'tag'),
      fc.option(
        fc.oneof(
          token,
          // eslint-disable-next-line no-control-regex
          text.map((t) => JSON.stringify(t.replace(/[\\"\r\n\x00-\x1f\x7f]/g, ''))),
        ),
        {
          nil: null,
        },
      ),
    ),
    { maxLength: 3 },
  )
  .map((e) => new Map(e));

function strip<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const sipUri: fc.Arbitrary<SipUri> = fc
  .record({
    scheme: fc.constantFrom('sip' as const, 'sips' as const),
    user: fc.option(text, { nil: undefined }),
    password: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
    host,
    port,
    params: uriParams,
    headers: fc.array(fc.tuple(text, fc.string({ maxLength: 8 })), { maxLength: 2 }),
  })
  .map((u) => strip({ kind: 'sip' as const, ...u, password: u.user === undefined ? undefined : u.password }));

const telUri: fc.Arbitrary<TelUri> = fc
  .record({ number: fc.stringMatching(/^\+[0-9]{1,3}(-[0-9]{1,4}){0,3}$/), params: uriParams })
  .map((u) => ({ kind: 'tel', scheme: 'tel', ...u }));

const nameAddr: fc.Arbitrary<NameAddr> = fc
  .record({
    displayName: fc.option(
      fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, '')),
      { nil: undefined },
    ),
    uri: fc.oneof(sipUri, telUri),
    params: headerParams,
    tag: fc.option(token, { nil: undefined }),
  })
  .map(({ tag, params, ...rest }) =>
    strip({ ...rest, tag, params: tag === undefined ? params : new Map([...params, ['tag', tag]]) }),
  );

const via: fc.Arbitrary<Via> = fc
  .record({
    transport: fc.constantFrom('UDP', 'TCP', 'TLS', 'WS'),
    host,
    port,
    branch: token.map((t) => 'z9hG4bK' + t),
    rport: fc.boolean(),
  })
  .map(({ branch, rport, ...v }) => {
    const params: Params = new Map([['branch', branch]]);
    if (rport) params.set('rport', null);
    return strip({ protocol: 'SIP', version: '2.0', ...v, params, branch, rport: rport ? true : undefined });
  });

const extraHeaders = fc.array(
  fc.tuple(
    token.map((t) => 'X-' + t),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' ').trim()),
  ),
  { maxLength: 4 },
);

const common = fc.record({
  vias: fc.array(via, { minLength: 1, maxLength: 3 }),
  from: nameAddr,
  to: nameAddr,
  callId: fc.tuple(token, fc.option(token)).map(([a, b]) => (b ? `${a}@${b}` : a)),
  seq: fc.integer({ min: 0, max: 0xffffffff }),
  maxForwards: fc.integer({ min: 0, max: 255 }),
  contacts: fc.array(nameAddr, { maxLength: 2 }),
  routes: fc.array(nameAddr, { maxLength: 2 }),
  extra: extraHeaders,
  body: fc.uint8Array({ maxLength: 64 }),
});

type Common = typeof common extends fc.Arbitrary<infer T> ? T : never;

function headersOf(c: Common, method: string): HeaderInit[] {
  const h: HeaderInit[] = c.vias.map((v) => ['Via', formatVia(v)] as const);
  h.push(['From', formatNameAddr(c.from)], ['To', formatNameAddr(c.to)], ['Call-ID', c.callId]);
  h.push(['CSeq', `${c.seq} ${method}`], ['Max-Forwards', String(c.maxForwards)]);
  for (const x of c.contacts) h.push(['Contact', formatNameAddr(x)]);
  if (c.routes.length > 0) h.push(['Route', c.routes.map(formatNameAddr).join(', ')]);
  h.push(...c.extra);
  if (c.body.length > 0) h.push(['Content-Type', 'application/octet-stream']);
  return h;
}

const request = fc.tuple(token, fc.oneof(sipUri, telUri), common).map(([method, uri, c]) => ({
  c,
  m: createRequest({ method, uri, headers: headersOf(c, method), body: c.body }),
}));

const response = fc
  .tuple(fc.integer({ min: 100, max: 699 }), fc.stringMatching(/^[ -~]{0,20}$/), token, common)
  .map(([status, reason, method, c]) =>
    createResponse({ status, reason, headers: headersOf(c, method), body: c.body }),
  );

function onlyParseErrors(input: Uint8Array | string): void {
  try {
    parseMessage(input);
  } catch (e) {
    if (!(e instanceof SipParseError)) throw e;
  }
}

describe('message round trip', () => {
  it('URIs format and parse back to the same value', () => {
    fc.assert(
      fc.property(fc.oneof(sipUri, telUri), (u) => {
        expect(parseUri(formatUri(u))).toEqual(u);
      }),
    );
  });

  it('parse(serialize(m)) equals m for requests, and the typed view holds what was built', () => {
    fc.assert(
      fc.property(request, ({ c, m }) => {
        expect(parseMessage(serialize(m))).toEqual(m);
        expect(parseMessage(serialize(m, { compact: true }))).toEqual(m);
        expect(m.via).toEqual(c.vias);
        expect(m.from).toEqual(c.from);
        expect(m.to).toEqual(c.to);
        expect(m.contact).toEqual(c.contacts);
        expect(m.route).toEqual(c.routes);
        expect(m.cseq.seq).toBe(c.seq);
        expect(m.body).toEqual(c.body);
      }),
      { numRuns: 300 },
    );
  });

  it('parse(serialize(m)) equals m for responses', () => {
    fc.assert(
      fc.property(response, (m) => {
        expect(parseMessage(serialize(m))).toEqual(m);
      }),
    );
  });

  it('a stream cut anywhere frames back into the same messages', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (ms, cuts) => {
          const wire = Buffer.concat(ms.map(({ m }) => serialize(m)));
          const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
          const framer = new StreamFramer();
          const frames = [];
          let at = 0;
          for (const p of [...points, wire.length]) {
            frames.push(...framer.push(wire.subarray(at, p)));
            at = p;
          }
          expect(frames.map((f) => (f.kind === 'message' ? parseMessage(f.bytes) : f))).toEqual(
            ms.map(({ m }) => m),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('no input makes the parser throw anything but SipParseError', () => {
  it('arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), onlyParseErrors), { numRuns: 2000 });
  });

  it('arbitrary strings made of SIP-ish pieces', () => {
    const piece = fc.constantFrom(
      'INVITE ',
      'SIP/2.0',
      ' ',
      '\r\n',
      '\r\n\r\n',
      'Via: ',
      'SIP/2.0/UDP ',
      'v:',
      'l: ',
      'Content-Length: 5',
      'f: ',
      't: ',
      '<sip:',
      '>',
      ';tag=',
      ';branch=z9hG4bK',
      '"',
      '\\',
      '%',
      '%4',
      '@',
      ':',
      ',',
      ';',
      '?',
      '[::1]',
      '1.2.3.4',
      'a',
      '0',
      'CSeq: 1 INVITE',
      'Call-ID: x',
      '\t',
      'sips:',
      'tel:+1',
      '=',
      '\u00e9',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }).map((p) => p.join('')),
        onlyParseErrors,
      ),
      {
        numRuns: 3000,
      },
    );
  });

  it('mutations of the RFC 4475 messages', () => {
    const mutation = fc.record({
      index: fc.nat(FIXTURES.length - 1),
      edits: fc.array(
        fc.record({
          at: fc.nat(),
          op: fc.constantFrom('flip', 'insert', 'delete', 'dup', 'cut'),
          byte: fc.nat(255),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    });
    fc.assert(
      fc.property(mutation, ({ index, edits }) => {
        let b = Buffer.from(FIXTURES[index]);
        for (const e of edits) {
          const at = e.at % (b.length + 1);
          if (e.op === 'flip') b[Math.min(at, b.length - 1)] = e.byte;
          else if (e.op === 'insert')
            b = Buffer.concat([b.subarray(0, at), Buffer.from([e.byte]), b.subarray(at)]);
          else if (e.op === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
          else if (e.op === 'dup')
            b = Buffer.concat([b.subarray(0, at), b.subarray(at - (e.byte % 40), at), b.subarray(at)]);
          else b = b.subarray(0, at);
        }
        onlyParseErrors(b);
        const framer = new StreamFramer();
        try {
          framer.push(b);
        } catch (e) {
          if (!(e instanceof SipParseError)) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });
});
