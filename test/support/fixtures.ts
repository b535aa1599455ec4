// Builders for the resources most tests need: a project, an agent, a published workflow, a trunk
// and a registered number, written straight to the store (fast, and independent of the routes
// under test elsewhere).
import { TRUNK_WATCH_OFF } from '../../src/modules/sip-trunks/sip-trunks.service.js';
import type { TestApi } from './api.js';

export const SIMPLE_GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Hello {{caller}}' } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'bye' },
  ],
};

export async function createProject(t: TestApi, key = t.key, name = 'proj'): Promise<string> {
  const res = await t.call('POST', '/api/v1/projects', { key, body: { name } });
  if (res.statusCode !== 201) throw new Error(`project: ${res.statusCode} ${res.body}`);
  return (res.data as { data: { id: string } }).data.id;
}

export async function createPublishedWorkflow(
  t: TestApi,
  projectId: string,
  key = t.key,
  graph: unknown = SIMPLE_GRAPH,
): Promise<string> {
  const res = await t.call('POST', '/api/v1/workflows', {
    key,
    body: { project_id: projectId, name: 'flow', graph },
  });
  if (res.statusCode !== 201) throw new Error(`workflow: ${res.statusCode} ${res.body}`);
  const id = (res.data as { data: { id: string } }).data.id;
  const pub = await t.call('POST', `/api/v1/workflows/${id}/publish`, { key });
  if (pub.statusCode !== 200) throw new Error(`publish: ${pub.statusCode} ${pub.body}`);
  return id;
}

/** A trunk and a number on it, inserted directly (the telephony routes have their own tests). */
export async function registerNumber(
  t: TestApi,
  workspaceId: string,
  projectId: string,
  number: string,
  dispatchRules: unknown[] = [],
): Promise<{ trunkId: string; numberId: string }> {
  const now = new Date(t.clock.now()).toISOString();
  const trunkId = t.deps.newId();
  await t.store.db
    .insertInto('sip_trunks')
    .values({
      id: trunkId,
      workspace_id: workspaceId,
      name: 'trunk',
      provider: 'generic',
      termination_uri: 'sip:carrier.example.test',
      auth_username: 'user',
      auth_password_enc: t.deps.secretBox.seal('secret'),
      transport: 'udp',
      allowed_ips: '[]',
      status: 'active',
      created_at: now,
      updated_at: now,
      ...TRUNK_WATCH_OFF,
    })
    .execute();
  const numberId = t.deps.newId();
  await t.store.db
    .insertInto('phone_numbers')
    .values({
      id: numberId,
      workspace_id: workspaceId,
      project_id: projectId,
      sip_trunk_id: trunkId,
      number,
      label: null,
      dispatch_rules: JSON.stringify(dispatchRules),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { trunkId, numberId };
}
