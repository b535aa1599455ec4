import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { FakeClock } from '../../src/shared/clock.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';

type Json = Record<string, unknown> & { data: Record<string, unknown> };

describe.each(storeKinds())('auth, scopes and keys on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  it('answers 401 for a missing, malformed, unknown or revoked key', async () => {
    for (const key of [null, 'nope', 'pk_live_short', `pk_live_${'A'.repeat(43)}`]) {
      const res = await t.call('GET', '/api/v1/projects', { key });
      expect(res.statusCode, String(key)).toBe(401);
      expect(Object.keys(res.data as object)).toEqual(['message']);
    }
    const raw = await t.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: { authorization: `Basic ${t.key}` },
    });
    expect(raw.statusCode).toBe(401);
  });

  it('creates keys whose secret is shown once, lists them by prefix, and revokes at once', async () => {
    const created = await t.call('POST', '/api/v1/api-keys', { body: { name: 'ci', scopes: ['read'] } });
    expect(created.statusCode).toBe(201);
    const k = (created.data as Json).data;
    expect(k.key).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe((k.key as string).slice(0, 12));
    expect(k.last_used_at).toBeNull();

    const use = await t.call('GET', '/api/v1/projects', { key: k.key as string });
    expect(use.statusCode).toBe(200);

    const list = await t.call('GET', '/api/v1/api-keys');
    const listed = (list.data as { data: Record<string, unknown>[] }).data.find((x) => x.id === k.id)!;
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('key');
    expect(JSON.stringify(list.data)).not.toContain(k.key as string);
    expect(listed.last_used_at).toMatch(/Z$/);

    const revoke = await t.call('DELETE', `/api/v1/api-keys/${k.id}`);
    expect(revoke.statusCode).toBe(204);
    expect((await t.call('GET', '/api/v1/projects', { key: k.key as string })).statusCode).toBe(401);
    expect((await t.call('DELETE', `/api/v1/api-keys/${k.id}`)).statusCode).toBe(404);
  });

  it('records last_used_at at most once a minute per key', async () => {
    const created = await t.call('POST', '/api/v1/api-keys', { body: { name: 'touch', scopes: ['read'] } });
    const k = (created.data as Json).data;
    const lastUsed = async () => {
      const list = await t.call('GET', '/api/v1/api-keys?per_page=100');
      return (list.data as { data: Record<string, unknown>[] }).data.find((x) => x.id === k.id)!.last_used_at;
    };
    // The API writes times to the second.
    const nowText = () => new Date(t.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const first = nowText();
    await t.call('GET', '/api/v1/projects', { key: k.key as string });
    expect(await lastUsed()).toBe(first);
    t.clock.advance(59_000);
    await t.call('GET', '/api/v1/projects', { key: k.key as string });
    expect(await lastUsed()).toBe(first);
    t.clock.advance(1_000);
    await t.call('GET', '/api/v1/projects', { key: k.key as string });
    expect(await lastUsed()).toBe(nowText());
  });

  it('answers 403 for a missing scope; write implies read; a key cannot grant more than it holds', async () => {
    const make = async (scopes: string[]) =>
      ((await t.call('POST', '/api/v1/api-keys', { body: { name: 's', scopes } })).data as Json).data
        .key as string;
    const readOnly = await make(['read']);
    const writeOnly = await make(['write']);
    const usage = await make(['usage:read']);

    const denied = await t.call('POST', '/api/v1/projects', { key: readOnly, body: { name: 'x' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.data).toEqual({ message: 'This action needs an API key with the "write" scope.' });
    expect((await t.call('GET', '/api/v1/projects', { key: writeOnly })).statusCode).toBe(200);
    expect((await t.call('GET', '/api/v1/projects', { key: usage })).statusCode).toBe(403);
    expect((await t.call('POST', '/api/v1/sessions', { key: writeOnly, body: {} })).statusCode).toBe(403);

    const escalate = await t.call('POST', '/api/v1/api-keys', {
      key: writeOnly,
      body: { name: 'x', scopes: ['telephony'] },
    });
    expect(escalate.statusCode).toBe(422);
    expect(escalate.data).toMatchObject({ errors: { scopes: [expect.stringContaining('telephony')] } });
    const unknown = await t.call('POST', '/api/v1/api-keys', { body: { name: 'x', scopes: ['admin'] } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.data).toHaveProperty('errors');
  });

  it('hides keys of other workspaces', async () => {
    const other = await t.newWorkspace('other');
    const theirs = (
      (await t.call('POST', '/api/v1/api-keys', { key: other.key, body: { name: 'x', scopes: ['read'] } }))
        .data as Json
    ).data;
    expect((await t.call('DELETE', `/api/v1/api-keys/${theirs.id}`)).statusCode).toBe(404);
  });

  it('sends X-RateLimit headers on authenticated responses, errors included', async () => {
    const res = await t.call('GET', '/api/v1/projects');
    expect(res.headers['x-ratelimit-limit']).toBe('100000');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
    expect(res.headers['x-request-id']).toBeTruthy();

    const readOnly = (
      (await t.call('POST', '/api/v1/api-keys', { body: { name: 'r', scopes: ['read'] } })).data as Json
    ).data.key as string;
    const errors = [
      await t.call('GET', `/api/v1/projects/${t.deps.newId()}`),
      await t.call('POST', '/api/v1/projects', { body: {} }),
      await t.call('POST', '/api/v1/projects', { key: readOnly, body: { name: 'x' } }),
    ];
    expect(errors.map((e) => e.statusCode)).toEqual([404, 422, 403]);
    for (const e of errors) {
      expect(e.headers['x-ratelimit-limit'], String(e.statusCode)).toBe('100000');
      expect(e.headers['x-ratelimit-remaining'], String(e.statusCode)).toMatch(/^\d+$/);
    }
    // Unknown paths and public routes take no key: no count, no headers.
    const unknown = await t.call('GET', '/api/v1/nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers).not.toHaveProperty('x-ratelimit-remaining');
  });

  it('serves the OpenAPI 3.1 document covering every route, and the health check', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const spec = doc.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(spec.openapi).toBe('3.1.0');
    const routes = t.app.printRoutes({ commonPrefix: false });
    for (const path of [
      '/api/v1/projects',
      '/api/v1/projects/{id}',
      '/api/v1/agents',
      '/api/v1/workflows/{id}/publish',
      '/api/v1/workflows/{id}/versions/{version}',
      '/api/v1/sessions',
      '/api/v1/calls',
      '/api/v1/api-keys/{id}',
    ]) {
      expect(spec.paths, path).toHaveProperty([path]);
    }
    expect(routes).toContain('projects');
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', store: kind.name });
  });
});

describe('GET /healthz reports speech beside the store', () => {
  it('keeps status ok for the store and says speech output is unavailable when espeak-ng is missing', async () => {
    const [kind] = storeKinds();
    const t = await startTestApi(kind!, {
      config: {
        speech: { sttProtocol: 'deepgram', sttModel: undefined, espeakCommand: '/nonexistent/espeak-ng' },
      },
    });
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      store: kind!.name,
      speech: {
        output: {
          provider: 'tts_vendor_1',
          engine: 'espeak-ng',
          available: false,
          detail: '/nonexistent/espeak-ng is not installed (apt-get install espeak-ng)',
        },
        input: { provider: 'stt_vendor_1', engine: 'soundswallower', available: true },
      },
    });
    await t.app.close();
    await t.store.close();
  });
});

describe.each(storeKinds())('rate limit through the API on $name', (kind) => {
  it('answers 429 with Retry-After, remaining 0 and a message-only body, per workspace', async () => {
    const clock = new FakeClock();
    const t = await startTestApi(kind, { clock, rateLimiter: new MemoryRateLimiter(3, clock) });
    try {
      const other = await t.newWorkspace('b');
      for (let i = 0; i < 3; i++) {
        const ok = await t.call('GET', '/api/v1/projects');
        expect(ok.statusCode).toBe(200);
        expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
      }
      const limited = await t.call('GET', '/api/v1/projects');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBe('60');
      expect(limited.headers['x-ratelimit-limit']).toBe('3');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.data).toEqual({ message: 'Too many requests.' });
      expect((await t.call('GET', '/api/v1/projects', { key: other.key })).statusCode).toBe(200);
      clock.advance(60_000);
      expect((await t.call('GET', '/api/v1/projects')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe.each(storeKinds())('idempotency keys on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  const count = async (key: string) =>
    ((await t.call('GET', '/api/v1/projects', { key })).data as { meta: { total: number } }).meta.total;

  it('replays the first response and creates nothing on a retry', async () => {
    const ws = await t.newWorkspace('idem');
    const headers = { 'idempotency-key': 'create-1' };
    const first = await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: 'once' } });
    const again = await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: 'once' } });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await count(ws.key)).toBe(1);
  });

  it('refuses the same key with another body (422) and while the first still runs (409)', async () => {
    const ws = await t.newWorkspace('idem2');
    const headers = { 'idempotency-key': 'k' };
    await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: 'a' } });
    const other = await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: 'b' } });
    expect(other.statusCode).toBe(422);
    expect(other.data).toMatchObject({ errors: { 'Idempotency-Key': expect.any(Array) } });

    await t.store.db
      .insertInto('idempotency_keys')
      .values({
        workspace_id: ws.workspaceId,
        key: 'running',
        request_hash: 'x',
        state: 'processing',
        response_status: null,
        response_body: null,
        created_at: new Date(t.clock.now()).toISOString(),
        expires_at: new Date(t.clock.now() + 86_400_000).toISOString(),
      })
      .execute();
    const busy = await t.call('POST', '/api/v1/projects', {
      key: ws.key,
      headers: { 'idempotency-key': 'running' },
      body: { name: 'a' },
    });
    expect(busy.statusCode).toBe(409);
    expect(await count(ws.key)).toBe(1);
  });

  it('frees the key after a failed request and expires keys after 24 h', async () => {
    const ws = await t.newWorkspace('idem3');
    const headers = { 'idempotency-key': 'retry-me' };
    const bad = await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: '' } });
    expect(bad.statusCode).toBe(422);
    const good = await t.call('POST', '/api/v1/projects', { key: ws.key, headers, body: { name: '' } });
    expect(good.statusCode).toBe(422); // same body, ran again (nothing stored for failures)
    const created = await t.call('POST', '/api/v1/projects', {
      key: ws.key,
      headers: { 'idempotency-key': 'day' },
      body: { name: 'x' },
    });
    expect(created.statusCode).toBe(201);
    t.clock.advance(24 * 3600 * 1000 + 1);
    const later = await t.call('POST', '/api/v1/projects', {
      key: ws.key,
      headers: { 'idempotency-key': 'day' },
      body: { name: 'x' },
    });
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(ws.key)).toBe(2);
  });
});

describe('health check', () => {
  it('answers 503 in the envelope when the store does not answer', async () => {
    const [kind] = storeKinds();
    const t = await startTestApi(kind!);
    await t.store.close();
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ message: 'The store does not answer.' });
    await t.app.close();
  });
});
