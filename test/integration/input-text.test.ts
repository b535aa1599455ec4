// Requests that once answered 500 (or were stored differently on each store) answer in the spec's
// envelope with the same status on every store: NUL characters and unpaired surrogates anywhere
// in a body or a declared query field (422), page numbers past any real offset (422), path ids
// that cannot exist — overlong, NUL, not UTF-8 — (404, after authentication).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

for (const kind of storeKinds()) {
  describe(`text and numbers no store keeps as sent (${kind.name})`, () => {
    let t: TestApi;
    let workflowId: string;
    beforeAll(async () => {
      t = await startTestApi(kind);
      workflowId = await createPublishedWorkflow(t, await createProject(t));
    });
    afterAll(async () => t.close());

    it('refuses a NUL character in a body field with 422 naming the field, and stores nothing', async () => {
      const res = await t.call('POST', '/api/v1/projects', { body: { name: 'a\u0000b' } });
      expect(res.statusCode).toBe(422);
      expect(res.data).toEqual({
        message: 'The name field must not contain the NUL character (\\u0000).',
        errors: { name: ['must not contain the NUL character (\\u0000)'] },
      });
      const list = (await t.call('GET', '/api/v1/projects')).data as { data: Array<{ name: string }> };
      expect(list.data.map((p) => p.name)).not.toContain('a\u0000b');
    });

    it('names nested fields and keys', async () => {
      const project = await createProject(t);
      const res = await t.call('POST', '/api/v1/sessions', {
        body: { project_id: project, workflow_id: workflowId, variables: { name: { first: 'A\u0000' } } },
      });
      expect(res.statusCode).toBe(422);
      expect(res.data).toMatchObject({ errors: { 'variables.name.first': [expect.stringMatching(/NUL/)] } });
      const byKey = await t.call('POST', '/api/v1/sessions', {
        body: { project_id: project, workflow_id: workflowId, metadata: { 'k\u0000': 1 } },
      });
      expect(byKey.statusCode).toBe(422);
      expect(byKey.data).toMatchObject({ errors: { 'metadata.k\uFFFD': [expect.stringMatching(/^key /)] } });
    });

    it('refuses an unpaired surrogate, which both stores would have replaced silently', async () => {
      const res = await t.call('POST', '/api/v1/projects', { body: { name: 'ok', description: 'x\ud800' } });
      expect(res.statusCode).toBe(422);
      expect(res.data).toMatchObject({
        errors: { description: [expect.stringMatching(/unpaired surrogate/)] },
      });
    });

    it('refuses a NUL character in a query filter with 422, and ignores undeclared query fields', async () => {
      const res = await t.call('GET', '/api/v1/calls?from=%00x');
      expect(res.statusCode).toBe(422);
      expect(res.data).toMatchObject({ errors: { from: [expect.stringMatching(/NUL/)] } });
      expect((await t.call('GET', '/api/v1/projects?unknown=%00')).statusCode).toBe(200);
    });

    it('refuses page numbers past any real offset, and version numbers past the stored column', async () => {
      for (const page of ['1e%2B308', '1000000001']) {
        const res = await t.call('GET', `/api/v1/projects?page=${page}`);
        expect(res.statusCode).toBe(422);
        expect(res.data).toEqual({
          message: 'The page field must be <= 1000000000.',
          errors: { page: ['must be <= 1000000000'] },
        });
      }
      expect((await t.call('GET', '/api/v1/projects?page=1000000000')).statusCode).toBe(200);
      // A path holds ids: a version past the column cannot exist (it answered 500 on PostgreSQL).
      const version = await t.call('GET', `/api/v1/workflows/${workflowId}/versions/1e%2B308`);
      expect(version.statusCode).toBe(404);
      const publish = await t.call('POST', `/api/v1/workflows/${workflowId}/publish`, {
        body: { version: 1e308 },
      });
      expect(publish.statusCode).toBe(422);
    });

    it('answers a path id that cannot exist with 404 in the envelope, after authentication', async () => {
      const long = 'a'.repeat(5000);
      const res = await t.call('GET', `/api/v1/projects/${long}`);
      expect(res.statusCode).toBe(404);
      expect(res.data).toEqual({ message: 'Project not found.' });
      expect((await t.call('GET', `/api/v1/projects/${long}`, { key: null })).statusCode).toBe(401);
      const nul = await t.call('GET', '/api/v1/projects/%00');
      expect(nul.statusCode).toBe(404);
      expect(nul.data).toEqual({ message: 'Resource not found.' });
    });

    it('answers a path that does not decode with 404 in the envelope', async () => {
      for (const path of ['/api/v1/projects/%ZZ', '/api/v1/projects/%ED%A0%80']) {
        const res = await t.call('GET', path);
        expect(res.statusCode).toBe(404);
        expect(res.data).toEqual({ message: 'Not found: the path is not valid percent-encoded UTF-8.' });
      }
    });
  });
}
