// The foreign-workspace matrix: every resource of workspace A, every verb, called with workspace
// B's all-scopes key, answers 404 in the envelope (never 403, never the data) and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

type One = { data: Record<string, unknown> };

describe.each(storeKinds())('foreign workspace 404 matrix on $name', (kind) => {
  let t: TestApi;
  let foreignKey: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApi(kind);
    foreignKey = (await t.newWorkspace('intruder')).key;
    const post = async (path: string, body: unknown) => {
      const res = await t.call('POST', `/api/v1${path}`, { body });
      if (res.statusCode !== 201) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
      return (res.data as One).data;
    };
    ids.project = await createProject(t);
    ids.workflow = await createPublishedWorkflow(t, ids.project);
    ids.agent = (
      await post('/agents', {
        project_id: ids.project,
        name: 'a',
        system_prompt: 's',
        llm_provider: 'llm_vendor_1',
        llm_model: 'm',
      })
    ).id as string;
    ids.trunk = (
      await post('/sip-trunks', {
        name: 't',
        provider: 'generic',
        termination_uri: 'sip:carrier.example.com',
        auth_username: 'u',
        auth_password: 'p',
        transport: 'udp',
      })
    ).id as string;
    ids.number = (
      await post('/phone-numbers', {
        number: '+14155550100',
        sip_trunk_id: ids.trunk,
        project_id: ids.project,
      })
    ).id as string;
    ids.session = (await post('/sessions', { project_id: ids.project, workflow_id: ids.workflow }))
      .id as string;
    ids.call = (
      await post('/calls', {
        project_id: ids.project,
        workflow_id: ids.workflow,
        from: '+14155550100',
        to: '+14155550111',
      })
    ).id as string;
    ids.key = (await post('/api-keys', { name: 'k', scopes: ['read'] })).id as string;
    ids.endpoint = (
      await post('/webhook-endpoints', {
        project_id: ids.project,
        url: 'https://hooks.example.com/x',
        events: ['session.ended'],
      })
    ).id as string;
    const now = new Date(t.clock.now()).toISOString();
    ids.conversation = t.deps.newId();
    await t.store.db
      .insertInto('conversations')
      .values({
        id: ids.conversation,
        workspace_id: t.workspaceId,
        project_id: ids.project,
        session_id: ids.session,
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  afterAll(() => t.close());

  const matrix = (): Array<[string, string, unknown?]> => [
    ['GET', `/projects/${ids.project}`],
    ['PATCH', `/projects/${ids.project}`, { name: 'x' }],
    ['DELETE', `/projects/${ids.project}`],
    ['GET', `/agents/${ids.agent}`],
    ['PATCH', `/agents/${ids.agent}`, { name: 'x' }],
    ['DELETE', `/agents/${ids.agent}`],
    ['GET', `/workflows/${ids.workflow}`],
    ['PATCH', `/workflows/${ids.workflow}`, { name: 'x' }],
    ['DELETE', `/workflows/${ids.workflow}`],
    ['POST', `/workflows/${ids.workflow}/validate`],
    ['POST', `/workflows/${ids.workflow}/publish`],
    ['POST', `/workflows/${ids.workflow}/simulate`, {}],
    ['GET', `/workflows/${ids.workflow}/versions`],
    ['GET', `/workflows/${ids.workflow}/versions/1`],
    ['GET', `/sessions/${ids.session}`],
    ['DELETE', `/sessions/${ids.session}`],
    ['GET', `/calls/${ids.call}`],
    ['GET', `/phone-numbers/${ids.number}`],
    ['PATCH', `/phone-numbers/${ids.number}`, { label: 'x' }],
    ['DELETE', `/phone-numbers/${ids.number}`],
    ['POST', `/phone-numbers/${ids.number}/dispatch-test`, { caller: '+14155550199' }],
    ['GET', `/sip-trunks/${ids.trunk}`],
    ['PATCH', `/sip-trunks/${ids.trunk}`, { name: 'x' }],
    ['DELETE', `/sip-trunks/${ids.trunk}`],
    ['GET', `/conversations/${ids.conversation}`],
    ['DELETE', `/api-keys/${ids.key}`],
    ['GET', `/webhook-endpoints/${ids.endpoint}`],
    ['PATCH', `/webhook-endpoints/${ids.endpoint}`, { status: 'paused' }],
    ['DELETE', `/webhook-endpoints/${ids.endpoint}`],
    ['GET', `/webhook-endpoints/${ids.endpoint}/deliveries`],
  ];

  it('answers 404 on every resource and verb, and leaves everything in place', async () => {
    const before = await t.call('GET', `/api/v1/projects/${ids.project}`);
    for (const [method, path, body] of matrix()) {
      const res = await t.call(method, `/api/v1${path}`, { key: foreignKey, body });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(Object.keys(res.data as object), `${method} ${path}`).toEqual(['message']);
      expect(res.body).not.toContain(t.workspaceId);
    }
    for (const [method, path] of matrix().filter(([m]) => m === 'GET')) {
      expect((await t.call(method, `/api/v1${path}`)).statusCode, `owner ${path}`).toBe(200);
    }
    expect((await t.call('GET', `/api/v1/projects/${ids.project}`)).body).toBe(before.body);
    expect(((await t.call('GET', `/api/v1/sessions/${ids.session}`)).data as One).data.status).toBe(
      'pending',
    );
  });

  it('lists none of them to the other workspace', async () => {
    for (const list of [
      'projects',
      'agents',
      'workflows',
      'sessions',
      'calls',
      'phone-numbers',
      'sip-trunks',
      'conversations',
      'api-keys',
      'webhook-endpoints',
    ]) {
      const res = await t.call('GET', `/api/v1/${list}`, { key: foreignKey });
      expect(res.statusCode, list).toBe(200);
      const found = (res.data as { data: { id: string }[] }).data.filter((x) =>
        Object.values(ids).includes(x.id),
      );
      expect(found, list).toEqual([]);
    }
  });
});

describe.each(storeKinds())('project deletion on $name', (kind) => {
  it('is refused with 409 naming what the project still holds, then allowed once it is empty', async () => {
    const t = await startTestApi(kind);
    try {
      const project = await createProject(t);
      const ep = await t.call('POST', '/api/v1/webhook-endpoints', {
        body: { project_id: project, url: 'https://hooks.example.com/x', events: ['call.ended'] },
      });
      const blocked = await t.call('DELETE', `/api/v1/projects/${project}`);
      expect(blocked.statusCode).toBe(409);
      expect(blocked.data).toMatchObject({ message: expect.stringContaining('1 webhook endpoints') });
      await t.call('DELETE', `/api/v1/webhook-endpoints/${(ep.data as One).data.id}`);
      expect((await t.call('DELETE', `/api/v1/projects/${project}`)).statusCode).toBe(204);
    } finally {
      await t.close();
    }
  });
});
