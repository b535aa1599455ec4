import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';

describe.each(storeKinds())('projects on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  it('creates, reads, updates and deletes a project', async () => {
    const created = await t.call('POST', '/api/v1/projects', {
      body: { name: 'Support', description: 'line 1' },
    });
    expect(created.statusCode).toBe(201);
    const p = (created.data as { data: Record<string, unknown> }).data;
    expect(p).toMatchObject({ name: 'Support', description: 'line 1' });
    expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const got = await t.call('GET', `/api/v1/projects/${p.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.data).toEqual({ data: p });

    const patched = await t.call('PATCH', `/api/v1/projects/${p.id}`, { body: { name: 'Sales' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.data).toMatchObject({ data: { name: 'Sales', description: 'line 1' } });

    const del = await t.call('DELETE', `/api/v1/projects/${p.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await t.call('GET', `/api/v1/projects/${p.id}`)).statusCode).toBe(404);
  });

  it('answers 422 keyed by field, 400 for bad JSON or no body', async () => {
    const missing = await t.call('POST', '/api/v1/projects', { body: { description: 'x' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.data).toMatchObject({ errors: { name: ['is required'] } });
    const unknown = await t.call('POST', '/api/v1/projects', { body: { name: 'a', colour: 'red' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.data).toMatchObject({ errors: { colour: ['is not a known field'] } });
    const bad = await t.call('POST', '/api/v1/projects', { rawBody: '{"name": ' });
    expect(bad.statusCode).toBe(400);
    expect(bad.data).toEqual({ message: 'The request body is not valid JSON.' });
    const none = await t.call('POST', '/api/v1/projects');
    expect(none.statusCode).toBe(400);
    expect(Object.keys(none.data as object)).toEqual(['message']);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json']) {
      const other = await t.call('POST', '/api/v1/projects', {
        rawBody: '{"name": "x"}',
        headers: { 'content-type': type },
      });
      expect(other.statusCode, type).toBe(400);
      expect(other.data).toEqual({
        message: 'Send the request body as JSON, with Content-Type: application/json.',
      });
    }
  });

  it('keys a nullable field\'s type error by the field, as "… or null"', async () => {
    const res = await t.call('POST', '/api/v1/projects', { body: { name: 'a', description: 5 } });
    expect(res.statusCode).toBe(422);
    expect(res.data).toEqual({
      message: 'The description field must be string or null.',
      errors: { description: ['must be string or null'] },
    });
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await t.call('POST', '/api/v1/projects', {
      rawBody: JSON.stringify({ name: 'x', description: 'a'.repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.data).toHaveProperty('message');
  });

  it('hides projects of other workspaces behind 404 on every verb', async () => {
    const other = await t.newWorkspace('other');
    const foreign = await t.call('POST', '/api/v1/projects', { key: other.key, body: { name: 'theirs' } });
    const id = (foreign.data as { data: { id: string } }).data.id;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.call(method, `/api/v1/projects/${id}`, { body });
      expect(res.statusCode, method).toBe(404);
      expect(res.data).toEqual({ message: 'Project not found.' });
    }
    const list = await t.call('GET', '/api/v1/projects?per_page=100');
    expect((list.data as { data: { id: string }[] }).data.map((p) => p.id)).not.toContain(id);
  });

  it('pages newest first with Laravel links and meta', async () => {
    const ws = await t.newWorkspace('paging');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.call('POST', '/api/v1/projects', { key: ws.key, body: { name: `p${i}` } });
      ids.push((r.data as { data: { id: string } }).data.id);
      t.clock.advance(1000);
    }
    const page1 = await t.call('GET', '/api/v1/projects?per_page=2', { key: ws.key });
    const body = page1.data as {
      data: { id: string }[];
      links: Record<string, unknown>;
      meta: Record<string, unknown>;
    };
    expect(body.data.map((p) => p.id)).toEqual([ids[4], ids[3]]);
    expect(body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 3,
      path: 'http://localhost:8080/api/v1/projects',
      per_page: 2,
      to: 2,
      total: 5,
    });
    expect(body.links).toEqual({
      first: 'http://localhost:8080/api/v1/projects?page=1&per_page=2',
      last: 'http://localhost:8080/api/v1/projects?page=3&per_page=2',
      prev: null,
      next: 'http://localhost:8080/api/v1/projects?page=2&per_page=2',
    });
    const page3 = await t.call('GET', '/api/v1/projects?per_page=2&page=3', { key: ws.key });
    expect((page3.data as { links: { next: unknown } }).links.next).toBeNull();
    const past = await t.call('GET', '/api/v1/projects?page=7', { key: ws.key });
    expect(past.data).toMatchObject({ data: [], meta: { from: null, to: null, last_page: 1, total: 5 } });
    const tooBig = await t.call('GET', '/api/v1/projects?per_page=101', { key: ws.key });
    expect(tooBig.statusCode).toBe(422);
    expect(tooBig.data).toMatchObject({ errors: { per_page: expect.any(Array) } });
    const empty = await t.newWorkspace('empty');
    const none = await t.call('GET', '/api/v1/projects', { key: empty.key });
    expect(none.data).toMatchObject({
      data: [],
      meta: { from: null, to: null, last_page: 1, total: 0, per_page: 25 },
    });
  });

  it('answers unknown routes and ids with 404 in the envelope', async () => {
    const route = await t.call('GET', '/api/v1/nothing-here');
    expect(route.statusCode).toBe(404);
    expect(route.data).toEqual({ message: 'Route not found.' });
    const id = await t.call('GET', '/api/v1/projects/not-a-uuid');
    expect(id.statusCode).toBe(404);
  });
});
