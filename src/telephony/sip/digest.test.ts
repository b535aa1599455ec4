// Digest authentication: the published vectors of RFC 2617 and RFC 7616, and our client against
// our server on a fake clock (expiry, replay, forged nonces, other schemes).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { DigestAlgorithm } from './digest.js';
import {
  DigestClient,
  computeHa1,
  computeResponse,
  parseAuthField,
  parseChallenge,
  selectChallenge,
} from './digest.js';
import { DigestServer } from './digest-server.js';
import { getHeaders } from './message/access.js';
import { parseMessage } from './message/parse.js';

describe('published vectors', () => {
  it('RFC 2617 section 3.5 (MD5, qop=auth)', () => {
    const challenge = parseChallenge(
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    )!;
    expect(challenge).toEqual({
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      algorithm: 'MD5',
      qop: ['auth', 'auth-int'],
      opaque: '5ccc069c403ebaf9f0171e9517f40e41',
      stale: false,
    });
    const client = new DigestClient({
      username: 'Mufasa',
      password: 'Circle Of Life',
      cnonce: () => '0a4f113b',
    });
    const header = client.authorize(challenge, { method: 'GET', uri: '/dir/index.html' });
    const f = parseAuthField(header)!;
    expect(f.scheme).toBe('Digest');
    expect(Object.fromEntries(f.params)).toEqual({
      username: 'Mufasa',
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      uri: '/dir/index.html',
      response: '6629fae49393a05397450978507c4ef1',
      algorithm: 'MD5',
      cnonce: '0a4f113b',
      opaque: '5ccc069c403ebaf9f0171e9517f40e41',
      qop: 'auth',
      nc: '00000001',
    });
    // The nonce count goes up per nonce, and the response changes with it.
    const again = parseAuthField(client.authorize(challenge, { method: 'GET', uri: '/dir/index.html' }))!;
    expect(again.params.get('nc')).toBe('00000002');
    expect(again.params.get('response')).not.toBe('6629fae49393a05397450978507c4ef1');
  });

  it.each([
    ['SHA-256', '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1'],
    ['MD5', '8ca523f5e9506fed4657c9700eebdbec'],
  ] as const)('RFC 7616 section 3.9.1 (%s)', (algorithm, expected) => {
    expect(
      computeResponse({
        algorithm,
        username: 'Mufasa',
        realm: 'http-auth@example.org',
        password: 'Circle of Life',
        method: 'GET',
        uri: '/dir/index.html',
        nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
        qop: 'auth',
        nc: '00000001',
        cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
      }),
    ).toBe(expected);
  });

  it('RFC 2069 style (no qop) and -sess differ as the RFC says', () => {
    const base = { username: 'u', realm: 'r', password: 'p', method: 'INVITE', uri: 'sip:a@b', nonce: 'n' };
    const h = (s: string): string => createHash('md5').update(s).digest('hex');
    expect(computeResponse({ ...base, algorithm: 'MD5' })).toBe(h(`${h('u:r:p')}:n:${h('INVITE:sip:a@b')}`));
    expect(computeHa1({ ...base, algorithm: 'MD5-sess', cnonce: 'c' })).toBe(h(`${h('u:r:p')}:n:c`));
  });
});

describe('challenges', () => {
  it('reads auth fields and refuses malformed ones', () => {
    expect(parseAuthField('NoOneKnowsThisScheme opaque-data=here')).toEqual({
      scheme: 'NoOneKnowsThisScheme',
      params: new Map([['opaque-data', 'here']]),
    });
    expect(parseAuthField('Digest realm="a\\"b", nonce=x')!.params.get('realm')).toBe('a"b');
    expect(parseAuthField('Digest realm="open')).toBeUndefined();
    expect(parseAuthField('Digest realm')).toBeUndefined();
    expect(parseChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=SHA-512-256')).toBeUndefined();
  });

  it('answers the topmost challenge it supports', () => {
    const c = selectChallenge([
      'Digest realm="x", nonce="n1", algorithm=SHA-512-256',
      'Digest realm="x", nonce="n2", algorithm=SHA-256',
      'Digest realm="x", nonce="n3", algorithm=MD5',
    ]);
    expect(c).toMatchObject({ nonce: 'n2', algorithm: 'SHA-256' });
  });
});

describe('DigestServer', () => {
  const password = 'secret';
  const lookup = (u: string) => (u === 'alice' ? { password } : undefined);
  const setup = (algorithms?: DigestAlgorithm[]) => {
    const clock = new FakeClock();
    let n = 0;
    const server = new DigestServer({
      realm: 'sb.example',
      secret: 'k',
      clock,
      random: (b) => new Uint8Array(b).fill(++n),
      ...(algorithms ? { algorithms } : {}),
    });
    let c = 0;
    const client = new DigestClient({ username: 'alice', password, cnonce: () => `cn${++c}` });
    return { clock, server, client };
  };
  const req = { method: 'INVITE', uri: 'sip:bob@sb.example' };
  const answer = (client: DigestClient, challenge: string, r = req) =>
    client.authorize(parseChallenge(challenge)!, r);

  it('offers SHA-256 first, then MD5, and accepts either answer', () => {
    const { server, client } = setup();
    const [sha, md5] = server.challenge();
    expect(sha).toMatch(/^Digest realm="sb.example", nonce="[^"]+", algorithm=SHA-256, qop="auth"$/);
    expect(md5).toContain('algorithm=MD5');
    for (const c of [sha, md5]) {
      expect(server.verify({ ...req, credentials: [answer(client, c)] }, lookup)).toMatchObject({
        ok: true,
        username: 'alice',
      });
    }
  });

  it('refuses a replayed nonce count and accepts the next one', () => {
    const { server, client } = setup();
    const [c] = server.challenge();
    const first = answer(client, c);
    expect(server.verify({ ...req, credentials: [first] }, lookup).ok).toBe(true);
    expect(server.verify({ ...req, credentials: [first] }, lookup)).toMatchObject({
      ok: false,
      reason: 'replay',
    });
    expect(server.verify({ ...req, credentials: [answer(client, c)] }, lookup).ok).toBe(true);
  });

  it('says stale once the nonce is older than its lifetime, with stale=TRUE', () => {
    const { server, client, clock } = setup();
    const [c] = server.challenge();
    clock.advance(5 * 60_000 - 1);
    expect(server.verify({ ...req, credentials: [answer(client, c)] }, lookup).ok).toBe(true);
    clock.advance(2);
    const r = server.verify({ ...req, credentials: [answer(client, c)] }, lookup);
    expect(r).toMatchObject({ ok: false, reason: 'stale' });
    expect(!r.ok && r.challenge[0]).toContain('stale=TRUE');
  });

  it('refuses wrong passwords, forged nonces, other URIs and unknown users', () => {
    const { server, client } = setup();
    const [c] = server.challenge();
    const wrong = new DigestClient({ username: 'alice', password: 'nope' });
    expect(server.verify({ ...req, credentials: [answer(wrong, c)] }, lookup)).toMatchObject({
      reason: 'bad-response',
    });
    const forged = c.replace(/nonce="([^"]+)"/, (_m, n: string) => `nonce="${n.slice(0, -2)}AA"`);
    expect(server.verify({ ...req, credentials: [answer(client, forged)] }, lookup)).toMatchObject({
      reason: 'bad-nonce',
    });
    const spelled = answer(client, c, { method: 'INVITE', uri: 'SIP:%62ob@sb.example' });
    expect(server.verify({ ...req, credentials: [spelled] }, lookup)).toMatchObject({ ok: true });
    const other = answer(client, c, { method: 'INVITE', uri: 'sip:carol@sb.example' });
    expect(server.verify({ ...req, credentials: [other] }, lookup)).toMatchObject({ reason: 'uri-mismatch' });
    const mallory = new DigestClient({ username: 'mallory', password });
    expect(server.verify({ ...req, credentials: [answer(mallory, c)] }, lookup)).toMatchObject({
      reason: 'unknown-user',
    });
    expect(server.verify({ ...req, credentials: [] }, lookup)).toMatchObject({ reason: 'missing' });
  });

  it('checks -sess answers and stored H(A1)', () => {
    const { server, client } = setup(['SHA-256-sess']);
    const [c] = server.challenge();
    expect(server.verify({ ...req, credentials: [answer(client, c)] }, lookup).ok).toBe(true);
    const plain = setup(['SHA-256']);
    const ha1 = computeHa1({
      algorithm: 'SHA-256',
      username: 'alice',
      realm: 'sb.example',
      password,
      nonce: '',
    });
    const [c2] = plain.server.challenge();
    const r = plain.server.verify({ ...req, credentials: [answer(plain.client, c2)] }, () => ({
      ha1: { 'SHA-256': ha1 },
    }));
    expect(r.ok).toBe(true);
  });

  it('RFC 4475 regaut01: an unknown scheme is no credentials, so 401 with a challenge', () => {
    const m = parseMessage(
      readFileSync(new URL('../../../test/fixtures/rfc4475/regaut01.dat', import.meta.url)),
    );
    const { server } = setup();
    const r = server.verify(
      { method: 'REGISTER', uri: 'sip:example.com', credentials: getHeaders(m, 'Authorization') },
      lookup,
    );
    expect(r).toMatchObject({ ok: false, reason: 'malformed' });
    expect(!r.ok && r.challenge).toHaveLength(2);
  });
});
