import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../src/workflow/graph.types.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, registerNumber, SIMPLE_GRAPH } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

type One = { data: Record<string, unknown> };

describe.each(storeKinds())('agents and workflows on $name', (kind) => {
  let t: TestApi;
  let projectId: string;
  beforeAll(async () => {
    t = await startTestApi(kind);
    projectId = await createProject(t);
  });
  afterAll(() => t.close());

  const agentBody = () => ({
    project_id: projectId,
    name: 'Ava',
    system_prompt: 'You help callers.',
    llm_provider: 'llm_vendor_2',
    llm_model: 'model-x',
  });

  it('creates an agent with documented defaults and checks enums', async () => {
    const res = await t.call('POST', '/api/v1/agents', { body: agentBody() });
    expect(res.statusCode).toBe(201);
    expect((res.data as One).data).toMatchObject({
      name: 'Ava',
      llm_provider: 'llm_vendor_2',
      temperature: 0.7,
      stt_provider: 'stt_vendor_1',
      stt_language: 'en-US',
      tts_provider: 'tts_vendor_1',
      tts_voice: null,
      greeting: null,
      tools: [],
      knowledge_base_ids: [],
      mcp_server_ids: [],
    });
    const bad = await t.call('POST', '/api/v1/agents', {
      body: { ...agentBody(), llm_provider: 'gpt', stt_provider: 'x', temperature: 3 },
    });
    expect(bad.statusCode).toBe(422);
    const errors = (bad.data as { errors: Record<string, string[]> }).errors;
    expect(Object.keys(errors).sort()).toEqual(['llm_provider', 'stt_provider', 'temperature']);
    const missing = await t.call('POST', '/api/v1/agents', { body: { project_id: projectId } });
    expect(Object.keys((missing.data as { errors: object }).errors).sort()).toEqual([
      'llm_model',
      'llm_provider',
      'name',
      'system_prompt',
    ]);
    const foreignProject = await t.call('POST', '/api/v1/agents', {
      body: { ...agentBody(), project_id: t.deps.newId() },
    });
    expect(foreignProject.data).toMatchObject({ errors: { project_id: expect.any(Array) } });
  });

  it('patches an agent and refuses to delete it while a workflow uses it', async () => {
    const agent = ((await t.call('POST', '/api/v1/agents', { body: agentBody() })).data as One).data;
    const patched = await t.call('PATCH', `/api/v1/agents/${agent.id}`, {
      body: { greeting: 'Hi!', temperature: 0.2 },
    });
    expect(patched.statusCode).toBe(200);
    expect((patched.data as One).data).toMatchObject({ greeting: 'Hi!', temperature: 0.2, name: 'Ava' });

    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'talk', type: 'agent', config: { agent_id: agent.id } },
        { id: 'bye', type: 'end', config: {} },
      ],
      edges: [
        { source: 'start', target: 'talk' },
        { source: 'talk', target: 'bye' },
      ],
    };
    const wf = await t.call('POST', '/api/v1/workflows', {
      body: { project_id: projectId, name: 'Uses Ava', graph },
    });
    expect(wf.statusCode).toBe(201);
    const blocked = await t.call('DELETE', `/api/v1/agents/${agent.id}`);
    expect(blocked.statusCode).toBe(409);
    expect((blocked.data as { message: string }).message).toContain('Uses Ava');

    const proj = await t.call('DELETE', `/api/v1/projects/${projectId}`);
    expect(proj.statusCode).toBe(409);
    expect((proj.data as { message: string }).message).toMatch(/agents.*workflows|workflows/);

    await t.call('DELETE', `/api/v1/workflows/${(wf.data as One).data.id}`);
    expect((await t.call('DELETE', `/api/v1/agents/${agent.id}`)).statusCode).toBe(204);
  });

  it('validates drafts, refuses to publish errors with 422 and the findings', async () => {
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'ask', type: 'dtmf', config: { prompt: 'PIN?', num_digits: 4 } },
        { id: 'bye', type: 'end', config: {} },
      ],
      edges: [
        { source: 'start', target: 'ask' },
        { source: 'ask', source_handle: 'success', target: 'bye' },
        { source: 'ask', source_handle: 'timeout', target: 'bye' },
      ],
    };
    const wf = (
      (await t.call('POST', '/api/v1/workflows', { body: { project_id: projectId, name: 'PIN', graph } }))
        .data as One
    ).data;
    const v = await t.call('POST', `/api/v1/workflows/${wf.id}/validate`);
    expect(v.statusCode).toBe(200);
    const result = (v.data as { data: { valid: boolean; errors: { node_id: string; field: string }[] } })
      .data;
    expect(result.valid).toBe(false);
    expect(result.errors).toContainEqual(
      expect.objectContaining({ node_id: 'ask', field: 'save_to_variable' }),
    );

    const pub = await t.call('POST', `/api/v1/workflows/${wf.id}/publish`);
    expect(pub.statusCode).toBe(422);
    expect(pub.data).toMatchObject({ errors: { 'ask.save_to_variable': [expect.any(String)] } });
    const after = ((await t.call('GET', `/api/v1/workflows/${wf.id}`)).data as One).data;
    expect(after.published_version).toBeNull();
  });

  it('publishes versions, lists them, freezes graphs and rolls back as a new version', async () => {
    const wf = (
      (
        await t.call('POST', '/api/v1/workflows', {
          body: { project_id: projectId, name: 'Hello', graph: SIMPLE_GRAPH },
        })
      ).data as One
    ).data;
    const p1 = await t.call('POST', `/api/v1/workflows/${wf.id}/publish`, {
      headers: { 'content-type': 'application/json' },
      rawBody: '',
    });
    expect(p1.statusCode).toBe(200);
    expect((p1.data as One).data).toMatchObject({ id: wf.id, name: 'Hello', published_version: 1 });

    const changed = structuredClone(SIMPLE_GRAPH);
    changed.nodes[1]!.config = { text: 'Changed' };
    await t.call('PATCH', `/api/v1/workflows/${wf.id}`, { body: { graph: changed } });
    t.clock.advance(1000);
    expect(
      ((await t.call('POST', `/api/v1/workflows/${wf.id}/publish`, { body: {} })).data as One).data
        .published_version,
    ).toBe(2);

    const v1 = await t.call('GET', `/api/v1/workflows/${wf.id}/versions/1`);
    expect((v1.data as One).data).toMatchObject({ version: 1, schema_version: 1, graph: SIMPLE_GRAPH });

    const rollback = await t.call('POST', `/api/v1/workflows/${wf.id}/publish`, { body: { version: 1 } });
    expect((rollback.data as One).data.published_version).toBe(3);
    // The body may also be absent (null); a wrong version is the version's error alone.
    const wrong = await t.call('POST', `/api/v1/workflows/${wf.id}/publish`, { body: { version: '1' } });
    expect(wrong.statusCode).toBe(422);
    expect((wrong.data as { errors: unknown }).errors).toEqual({ version: ['must be integer'] });
    expect(((await t.call('GET', `/api/v1/workflows/${wf.id}/versions/3`)).data as One).data.graph).toEqual(
      SIMPLE_GRAPH,
    );
    expect(((await t.call('GET', `/api/v1/workflows/${wf.id}`)).data as One).data.graph).toEqual(changed);

    const list = await t.call('GET', `/api/v1/workflows/${wf.id}/versions`);
    const items = (list.data as { data: Record<string, unknown>[] }).data;
    expect(items.map((i) => i.version)).toEqual([3, 2, 1]);
    expect(items[0]).toEqual({
      version: 3,
      published_at: expect.stringMatching(/Z$/),
      published_by: expect.stringMatching(/^api_key:/),
      schema_version: 1,
    });
    expect(
      (await t.call('POST', `/api/v1/workflows/${wf.id}/publish`, { body: { version: 9 } })).statusCode,
    ).toBe(422);
    expect((await t.call('GET', `/api/v1/workflows/${wf.id}/versions/9`)).statusCode).toBe(404);
  });

  it('refuses to delete a workflow attached to a number, and hides foreign workflows', async () => {
    const wf = (
      (
        await t.call('POST', '/api/v1/workflows', {
          body: { project_id: projectId, name: 'Inbound', graph: SIMPLE_GRAPH },
        })
      ).data as One
    ).data;
    await registerNumber(t, t.workspaceId, projectId, '+14155550100', [
      { workflow_id: wf.id, priority: 100 },
    ]);
    const res = await t.call('DELETE', `/api/v1/workflows/${wf.id}`);
    expect(res.statusCode).toBe(409);
    expect((res.data as { message: string }).message).toContain('+14155550100');

    const other = await t.newWorkspace('other');
    for (const [method, url, body] of [
      ['GET', `/api/v1/workflows/${wf.id}`, undefined],
      ['PATCH', `/api/v1/workflows/${wf.id}`, { name: 'x' }],
      ['DELETE', `/api/v1/workflows/${wf.id}`, undefined],
      ['POST', `/api/v1/workflows/${wf.id}/validate`, undefined],
      ['POST', `/api/v1/workflows/${wf.id}/publish`, undefined],
      ['GET', `/api/v1/workflows/${wf.id}/versions`, undefined],
    ] as const) {
      expect((await t.call(method, url, { key: other.key, body })).statusCode, `${method} ${url}`).toBe(404);
    }
    const agent = ((await t.call('POST', '/api/v1/agents', { body: agentBody() })).data as One).data;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res2 = await t.call(method, `/api/v1/agents/${agent.id}`, {
        key: other.key,
        body: method === 'PATCH' ? { name: 'x' } : undefined,
      });
      expect(res2.statusCode, method).toBe(404);
    }
  });
});

describe('workflow schema', () => {
  it('serves the graph JSON Schema publicly, with every node type', async () => {
    const [kind] = storeKinds();
    const t = await startTestApi(kind!);
    try {
      const res = await t.call('GET', '/api/v1/workflow-schema', { key: null });
      expect(res.statusCode).toBe(200);
      const text = res.body;
      for (const type of NODE_TYPES) {
        expect(text, type).toContain(`"${type}"`);
      }
      expect(text).toContain('save_to_variable');
    } finally {
      await t.close();
    }
  });
});
