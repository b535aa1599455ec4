// Fixtures for the telephony suites: keys with chosen scopes, projects, workflows and trunks
// created through the API the way a client would.
import { expect } from 'vitest';
import type { TestApi } from '../../support/api.js';

type Json = { data: Record<string, unknown> };

export async function keyWithScopes(t: TestApi, scopes: string[], key?: string): Promise<string> {
  const res = await t.call('POST', '/api/v1/api-keys', {
    key,
    body: { name: `k-${scopes.join('-')}`, scopes },
  });
  expect(res.statusCode).toBe(201);
  return (res.data as Json).data.key as string;
}

export async function createProject(t: TestApi, key?: string): Promise<string> {
  const res = await t.call('POST', '/api/v1/projects', { key, body: { name: 'telephony' } });
  expect(res.statusCode).toBe(201);
  return (res.data as Json).data.id as string;
}

export async function createWorkflow(t: TestApi, projectId: string, key?: string): Promise<string> {
  const res = await t.call('POST', '/api/v1/workflows', {
    key,
    body: { project_id: projectId, name: 'flow' },
  });
  expect(res.statusCode).toBe(201);
  return (res.data as Json).data.id as string;
}

export const TRUNK_PASSWORD = 'Tr0ub4dor&3-secret';

export function trunkBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'carrier',
    provider: 'generic',
    termination_uri: 'sip:trunk.example-carrier.com',
    auth_username: 'switchboard',
    auth_password: TRUNK_PASSWORD,
    transport: 'tls',
    ...overrides,
  };
}

export async function createTrunk(
  t: TestApi,
  overrides: Record<string, unknown> = {},
  key?: string,
): Promise<Record<string, unknown>> {
  const res = await t.call('POST', '/api/v1/sip-trunks', { key, body: trunkBody(overrides) });
  expect(res.statusCode, res.body).toBe(201);
  return (res.data as Json).data;
}
