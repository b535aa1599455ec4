import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

const graph = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
);
type Sim = {
  data: {
    status: string;
    path: string[];
    variables: Record<string, unknown>;
    messages: { role: string; content: string }[];
  };
};

describe.each(storeKinds())('POST /workflows/{id}/simulate on $name', (kind) => {
  let t: TestApi;
  let wf: string;
  beforeAll(async () => {
    t = await startTestApi(kind);
    const projectId = await createProject(t);
    const res = await t.call('POST', '/api/v1/workflows', {
      body: { project_id: projectId, name: 'menu', graph },
    });
    wf = (res.data as { data: { id: string } }).data.id;
  });
  afterAll(() => t.close());

  it('follows the DTMF branch the digits choose', async () => {
    const res = await t.call('POST', `/api/v1/workflows/${wf}/simulate`, {
      body: { variables: { name: 'Ann' }, inputs: [{ dtmf: '1' }] },
    });
    expect(res.statusCode).toBe(200);
    const d = (res.data as Sim).data;
    expect(d.status).toBe('completed');
    expect(d.path).toEqual(['start', 'ask', 'route', 'sales', 'bye']);
    expect(d.variables).toMatchObject({ choice: '1', name: 'Ann' });
    expect(d.messages.map((m) => m.content)).toContain('Connecting you to sales, Ann.');
  });

  it('takes the default branch and, with no input, the timeout handle at once', async () => {
    const two = (
      await t.call('POST', `/api/v1/workflows/${wf}/simulate`, { body: { inputs: [{ dtmf: '2' }] } })
    ).data as Sim;
    expect(two.data.path).toEqual(['start', 'ask', 'route', 'other', 'bye']);
    const none = (await t.call('POST', `/api/v1/workflows/${wf}/simulate`, { body: {} })).data as Sim;
    expect(none.data.path).toEqual(['start', 'ask', 'silence', 'bye']);
  });

  it('runs a published version, and refuses unknown versions, invalid graphs and foreign ids', async () => {
    await t.call('POST', `/api/v1/workflows/${wf}/publish`);
    const v1 = await t.call('POST', `/api/v1/workflows/${wf}/simulate`, {
      body: { version: 1, inputs: [{ dtmf: '1' }] },
    });
    expect((v1.data as Sim).data.status).toBe('completed');
    expect(
      (await t.call('POST', `/api/v1/workflows/${wf}/simulate`, { body: { version: 5 } })).statusCode,
    ).toBe(422);
    const bad = await t.call('POST', '/api/v1/workflows', {
      body: {
        project_id: (await t.call('GET', `/api/v1/workflows/${wf}`)).data && (await createProject(t)),
        name: 'bad',
        graph: { nodes: [], edges: [] },
      },
    });
    const badId = (bad.data as { data: { id: string } }).data.id;
    expect((await t.call('POST', `/api/v1/workflows/${badId}/simulate`, { body: {} })).statusCode).toBe(422);
    const other = await t.newWorkspace('x');
    expect(
      (await t.call('POST', `/api/v1/workflows/${wf}/simulate`, { key: other.key, body: {} })).statusCode,
    ).toBe(404);
  });
});
