import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { MemoryRateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { decryptTrunkPassword } from '../../src/modules/sip-trunks/sip-trunks.service.js';
import { REDACT_PATHS } from '../../src/shared/logger.js';
import { createWiring } from '../../src/wiring/wiring.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';
import { createProject, createTrunk, keyWithScopes, TRUNK_PASSWORD, trunkBody } from './testing/telephony.js';

type Json = { data: Record<string, unknown> };
type Errors = { message: string; errors: Record<string, string[]> };

describe.each(storeKinds())('sip trunks on $name', (kind) => {
  let t: TestApi;
  let label: string;
  beforeAll(async () => {
    t = await startTestApi(kind);
    const ws = await t.store.db
      .selectFrom('workspaces')
      .select('sip_label')
      .where('id', '=', t.workspaceId)
      .executeTakeFirstOrThrow();
    label = ws.sip_label;
  });
  afterAll(() => t.close());

  it('creates a trunk with its origination_uri and status, sealing the password', async () => {
    const res = await t.call('POST', '/api/v1/sip-trunks', {
      body: trunkBody({ allowed_ips: ['203.0.113.0/24', '2001:DB8::1'] }),
    });
    expect(res.statusCode).toBe(201);
    const trunk = (res.data as Json).data;
    expect(trunk).toEqual({
      id: expect.any(String),
      name: 'carrier',
      provider: 'generic',
      termination_uri: 'sip:trunk.example-carrier.com',
      auth_username: 'switchboard',
      transport: 'tls',
      allowed_ips: ['203.0.113.0/24', '2001:db8::1/128'],
      origination_uri: `sip:${label}.sip.localhost;transport=tls`,
      status: 'active',
      register: false,
      registrar_uri: null,
      registration_status: null,
      registration_error: null,
      registered_until: null,
      health_check: false,
      health: null,
      created_at: '2026-11-02T10:00:00Z',
      updated_at: '2026-11-02T10:00:00Z',
    });
    const row = await t.store.db
      .selectFrom('sip_trunks')
      .selectAll()
      .where('id', '=', trunk.id as string)
      .executeTakeFirstOrThrow();
    expect(row.auth_password_enc).not.toContain(TRUNK_PASSWORD);
    expect(decryptTrunkPassword(t.deps, row)).toBe(TRUNK_PASSWORD);

    const got = await t.call('GET', `/api/v1/sip-trunks/${trunk.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.data).toEqual({ data: trunk });
  });

  it('keeps origination_uri stable per workspace, with the transport of each trunk', async () => {
    const a = await createTrunk(t, { transport: 'udp', provider: 'generic' });
    const b = await createTrunk(t, { transport: 'tcp' });
    expect(a.origination_uri).toBe(`sip:${label}.sip.localhost;transport=udp`);
    expect(b.origination_uri).toBe(`sip:${label}.sip.localhost;transport=tcp`);
    const patched = await t.call('PATCH', `/api/v1/sip-trunks/${a.id}`, { body: { transport: 'tls' } });
    expect((patched.data as Json).data.origination_uri).toBe(`sip:${label}.sip.localhost;transport=tls`);

    const other = await t.newWorkspace('other-origination');
    const c = await createTrunk(t, { transport: 'udp' }, other.key);
    expect(c.origination_uri).toMatch(/^sip:ws-[0-9a-f]+\.sip\.localhost;transport=udp$/);
    expect(c.origination_uri).not.toBe(a.origination_uri);
    const again = await createTrunk(t, { transport: 'udp' }, other.key);
    expect(again.origination_uri).toBe(c.origination_uri);
  });

  it('lists trunks newest first with paging, never with a password', async () => {
    const ws = await t.newWorkspace('list');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await createTrunk(t, { name: `t${i}` }, ws.key)).id as string);
      t.clock.advance(1000);
    }
    const res = await t.call('GET', '/api/v1/sip-trunks?per_page=2', { key: ws.key });
    expect(res.statusCode).toBe(200);
    const body = res.data as {
      data: { id: string }[];
      meta: Record<string, unknown>;
      links: Record<string, unknown>;
    };
    expect(body.data.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(body.meta).toMatchObject({ total: 3, last_page: 2, per_page: 2 });
    expect(body.links.next).toBe('http://localhost:8080/api/v1/sip-trunks?page=2&per_page=2');
    expect(res.body).not.toContain('auth_password');
  });

  it('updates URIs, credentials, allowed IPs, name and transport', async () => {
    const trunk = await createTrunk(t, { allowed_ips: ['198.51.100.7'] });
    t.clock.advance(5000);
    const res = await t.call('PATCH', `/api/v1/sip-trunks/${trunk.id}`, {
      body: {
        name: 'renamed',
        termination_uri: 'sips:pbx.example.org:5061',
        auth_username: 'u2',
        auth_password: 'n3w-pass',
        allowed_ips: [],
      },
    });
    expect(res.statusCode).toBe(200);
    expect((res.data as Json).data).toMatchObject({
      name: 'renamed',
      termination_uri: 'sips:pbx.example.org:5061',
      auth_username: 'u2',
      allowed_ips: [],
      transport: 'tls',
      provider: 'generic',
      created_at: trunk.created_at,
    });
    expect((res.data as Json).data.updated_at).not.toBe((res.data as Json).data.created_at);
    expect(res.body).not.toContain('n3w-pass');
    const row = await t.store.db
      .selectFrom('sip_trunks')
      .selectAll()
      .where('id', '=', trunk.id as string)
      .executeTakeFirstOrThrow();
    expect(decryptTrunkPassword(t.deps, row)).toBe('n3w-pass');

    const untouched = await t.call('PATCH', `/api/v1/sip-trunks/${trunk.id}`, {
      body: { name: 'again', allowed_ips: ['10.0.0.1', '10.0.0.1/32', '::FFFF:10.0.0.1'] },
    });
    expect(untouched.statusCode).toBe(200);
    expect((untouched.data as Json).data.allowed_ips).toEqual(['10.0.0.1/32']);
    const row2 = await t.store.db
      .selectFrom('sip_trunks')
      .selectAll()
      .where('id', '=', trunk.id as string)
      .executeTakeFirstOrThrow();
    expect(decryptTrunkPassword(t.deps, row2)).toBe('n3w-pass');
  });

  it('answers 422 keyed by field on create and update', async () => {
    for (const field of [
      'name',
      'provider',
      'termination_uri',
      'auth_username',
      'auth_password',
      'transport',
    ]) {
      const body = trunkBody();
      delete body[field];
      const res = await t.call('POST', '/api/v1/sip-trunks', { body });
      expect(res.statusCode, field).toBe(422);
      expect((res.data as Errors).errors[field], field).toEqual(['is required']);
    }
    const enums = await t.call('POST', '/api/v1/sip-trunks', {
      body: trunkBody({ provider: 'carrier_b', transport: 'ws' }),
    });
    expect(enums.statusCode).toBe(422);
    expect((enums.data as Errors).errors).toMatchObject({
      provider: ['must be one of: carrier_a, generic'],
      transport: ['must be one of: tls, udp, tcp'],
    });
    for (const uri of ['http://x.example.com', 'carrier example.com', 'host:99999', '999.0.0.1']) {
      const res = await t.call('POST', '/api/v1/sip-trunks', { body: trunkBody({ termination_uri: uri }) });
      expect(res.statusCode, uri).toBe(422);
      expect(Object.keys((res.data as Errors).errors), uri).toEqual(['termination_uri']);
    }
    const ips = await t.call('POST', '/api/v1/sip-trunks', {
      body: trunkBody({ allowed_ips: ['10.0.0.0/8', '10.0.0.0/33', 'fe80::/129', 'example.com'] }),
    });
    expect(ips.statusCode).toBe(422);
    expect(Object.keys((ips.data as Errors).errors)).toEqual([
      'allowed_ips.1',
      'allowed_ips.2',
      'allowed_ips.3',
    ]);

    const trunk = await createTrunk(t);
    for (const body of [
      { auth_password: '' },
      { status: 'disabled' },
      { allowed_ips: ['nope'] },
      { provider: 'generic' },
    ]) {
      const res = await t.call('PATCH', `/api/v1/sip-trunks/${trunk.id}`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
    }
    const list = await t.call('GET', '/api/v1/sip-trunks?per_page=100');
    expect((list.data as { meta: { total: number } }).meta.total).toBeGreaterThan(0);
  });

  it('carrier_a takes only its termination SIP URI forms, with the port its transport uses', async () => {
    const ok = [
      ['sip:acme.pstn.twilio.com', 'udp'],
      ['acme.pstn.ashburn.twilio.com', 'tcp'],
      ['sip:acme.pstn.sao-paulo.twilio.com:5060', 'udp'],
      ['sip:acme.pstn.ie1.twilio.com', 'udp'],
      ['sip:acme.pstn.frankfurt-ix.twilio.com', 'udp'],
      ['sip:acme.pstn.dublin.twilio.com:5061;transport=tls', 'tls'],
      ['sips:acme.pstn.sydney.twilio.com', 'tls'],
    ];
    for (const [uri, transport] of ok) {
      const res = await t.call('POST', '/api/v1/sip-trunks', {
        body: trunkBody({ provider: 'carrier_a', termination_uri: uri, transport }),
      });
      expect(res.statusCode, `${uri} ${transport} ${res.body}`).toBe(201);
    }
    const refused: [string, string, RegExp][] = [
      ['sip:trunk.example-carrier.com', 'udp', /pstn\.twilio\.com/],
      ['sip:acme.pstn.mars.twilio.com', 'udp', /the edge one of ashburn, umatilla/],
      ['sip:acme.sip.twilio.com', 'udp', /pstn\.twilio\.com/],
      ['sip:+14155550100@acme.pstn.twilio.com', 'udp', /must not have a user part/],
      ['sip:acme.pstn.twilio.com:5061', 'udp', /port must be 5060/],
      ['sip:acme.pstn.twilio.com:5060', 'tls', /port must be 5061/],
    ];
    for (const [uri, transport, message] of refused) {
      const res = await t.call('POST', '/api/v1/sip-trunks', {
        body: trunkBody({ provider: 'carrier_a', termination_uri: uri, transport }),
      });
      expect(res.statusCode, uri).toBe(422);
      expect((res.data as Errors).errors.termination_uri?.[0], uri).toMatch(message);
    }
    // A generic trunk takes any host; a carrier_a trunk keeps its rules on update, transport too.
    expect(
      (
        await t.call('POST', '/api/v1/sip-trunks', {
          body: trunkBody({ termination_uri: 'sip:pbx.example.org:5061' }),
        })
      ).statusCode,
    ).toBe(201);
    const created = await t.call('POST', '/api/v1/sip-trunks', {
      body: trunkBody({
        provider: 'carrier_a',
        termination_uri: 'sip:acme.pstn.twilio.com:5060',
        transport: 'udp',
      }),
    });
    const id = (created.data as Json).data.id as string;
    const toTls = await t.call('PATCH', `/api/v1/sip-trunks/${id}`, { body: { transport: 'tls' } });
    expect(toTls.statusCode).toBe(422);
    expect((toTls.data as Errors).errors.termination_uri?.[0]).toMatch(/port must be 5061/);
    const elsewhere = await t.call('PATCH', `/api/v1/sip-trunks/${id}`, {
      body: { termination_uri: 'sip:pbx.example.org' },
    });
    expect(elsewhere.statusCode).toBe(422);
    const edge = await t.call('PATCH', `/api/v1/sip-trunks/${id}`, {
      body: { termination_uri: 'sip:acme.pstn.tokyo.twilio.com', transport: 'tls' },
    });
    expect(edge.statusCode, edge.body).toBe(200);
  });

  it('answers 401 without a key and 403 on writes for a key without telephony', async () => {
    const trunk = await createTrunk(t);
    expect((await t.call('GET', '/api/v1/sip-trunks', { key: null })).statusCode).toBe(401);
    expect((await t.call('POST', '/api/v1/sip-trunks', { key: null, body: trunkBody() })).statusCode).toBe(
      401,
    );
    for (const scopes of [['read'], ['write']]) {
      const key = await keyWithScopes(t, scopes);
      expect((await t.call('GET', '/api/v1/sip-trunks', { key })).statusCode).toBe(200);
      expect((await t.call('GET', `/api/v1/sip-trunks/${trunk.id}`, { key })).statusCode).toBe(200);
      for (const [method, url, body] of [
        ['POST', '/api/v1/sip-trunks', trunkBody()],
        ['PATCH', `/api/v1/sip-trunks/${trunk.id}`, { name: 'x' }],
        ['DELETE', `/api/v1/sip-trunks/${trunk.id}`, undefined],
      ] as const) {
        const res = await t.call(method, url, { key, body });
        expect(res.statusCode, `${scopes} ${method}`).toBe(403);
        expect(res.data).toEqual({ message: 'This action needs an API key with the "telephony" scope.' });
      }
    }
    const telephonyOnly = await keyWithScopes(t, ['telephony']);
    expect(
      (await t.call('POST', '/api/v1/sip-trunks', { key: telephonyOnly, body: trunkBody() })).statusCode,
    ).toBe(201);
    expect((await t.call('GET', '/api/v1/sip-trunks', { key: telephonyOnly })).statusCode).toBe(403);
  });

  it('hides trunks of other workspaces behind 404 on every verb', async () => {
    const other = await t.newWorkspace('foreign');
    const theirs = await createTrunk(t, {}, other.key);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.call(method, `/api/v1/sip-trunks/${theirs.id}`, { body });
      expect(res.statusCode, method).toBe(404);
      expect(res.data).toEqual({ message: 'SIP trunk not found.' });
    }
    const list = await t.call('GET', '/api/v1/sip-trunks?per_page=100');
    expect((list.data as { data: { id: string }[] }).data.map((x) => x.id)).not.toContain(theirs.id);
    expect((await t.call('GET', `/api/v1/sip-trunks/${theirs.id}`, { key: other.key })).statusCode).toBe(200);
  });

  it('deletes a trunk with 204, but answers 409 naming the numbers while numbers use it', async () => {
    const trunk = await createTrunk(t);
    const projectId = await createProject(t);
    const numbers: string[] = [];
    for (const number of ['+14155550124', '+442071838750']) {
      const res = await t.call('POST', '/api/v1/phone-numbers', {
        body: { number, sip_trunk_id: trunk.id, project_id: projectId },
      });
      expect(res.statusCode).toBe(201);
      numbers.push((res.data as Json).data.id as string);
    }
    const blocked = await t.call('DELETE', `/api/v1/sip-trunks/${trunk.id}`);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.data).toEqual({
      message:
        'The SIP trunk still carries 2 phone numbers (+14155550124, +442071838750); delete them first.',
      errors: { phone_numbers: ['+14155550124', '+442071838750'] },
    });
    expect((await t.call('GET', `/api/v1/sip-trunks/${trunk.id}`)).statusCode).toBe(200);

    for (const id of numbers)
      expect((await t.call('DELETE', `/api/v1/phone-numbers/${id}`)).statusCode).toBe(204);
    const del = await t.call('DELETE', `/api/v1/sip-trunks/${trunk.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await t.call('GET', `/api/v1/sip-trunks/${trunk.id}`)).statusCode).toBe(404);
    expect((await t.call('DELETE', `/api/v1/sip-trunks/${trunk.id}`)).statusCode).toBe(404);
  });

  it('never writes the password to a response or a log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
    // The whole app logs to the sink: requests (httpLogger) and the services (the wiring's logger).
    const wiring = createWiring({ config: t.deps.config, store: t.store, logger, clock: t.clock });
    const { app } = await buildApp({
      wiring,
      rateLimiter: new MemoryRateLimiter(t.deps.config.rateLimitPerMinute, t.clock),
      httpLogger: logger,
    });
    const secret = 'pw-that-must-not-leak-7f3a';
    const send = async (method: string, url: string, body?: unknown) => {
      const res = await app.inject({
        method: method as 'POST',
        url,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.body).not.toContain(secret);
      return res;
    };
    try {
      const created = await send('POST', '/api/v1/sip-trunks', trunkBody({ auth_password: secret }));
      expect(created.statusCode).toBe(201);
      const id = (JSON.parse(created.body) as Json).data.id as string;
      await send('GET', `/api/v1/sip-trunks/${id}`);
      await send('GET', '/api/v1/sip-trunks');
      await send('PATCH', `/api/v1/sip-trunks/${id}`, { auth_password: secret, name: 'n' });
      const bad = await send(
        'POST',
        '/api/v1/sip-trunks',
        trunkBody({ auth_password: secret, transport: 'x' }),
      );
      expect(bad.statusCode).toBe(422);
      await send('PATCH', `/api/v1/sip-trunks/${id}`, { auth_password: secret, termination_uri: 'bad uri' });
    } finally {
      await app.close();
      await wiring.close();
    }
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.join('')).not.toContain(secret);
  });
});
