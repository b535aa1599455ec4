// GET /plan (beyond the spec): the operator's monthly allowances, this month's use and what is
// left, read-only, scope usage:read, scoped to the caller's workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../../src/modules/usage/usage.service.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { keyWithScopes } from './testing/telephony.js';
import { storeKinds } from '../support/stores.js';

describe.each(storeKinds())('GET /plan on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind); // the fake clock stands at 2026-11-02T10:00:00Z
  });
  afterAll(() => t.close());

  const rec = (
    workspaceId: string,
    metric: 'voice_minutes' | 'sessions' | 'calls',
    quantity: number,
    at: string,
  ) =>
    recordUsage(t.store.db, {
      workspaceId,
      projectId: null,
      metric,
      provider: null,
      quantity,
      at: Date.parse(at),
    });

  it('says every allowance is unlimited until the operator sets one, with the period', async () => {
    const res = await t.call('GET', '/api/v1/plan');
    expect(res.statusCode).toBe(200);
    expect(res.data).toEqual({
      data: {
        period_start: '2026-11-01T00:00:00Z',
        resets_at: '2026-12-01T00:00:00Z',
        allowances: {
          voice_minutes: { limit: null, used: 0, remaining: null },
          sessions: { limit: null, used: 0, remaining: null },
          calls: { limit: null, used: 0, remaining: null },
        },
      },
    });
  });

  it("counts this month's use only, against the limits, and never goes below zero", async () => {
    const { key, workspaceId } = await t.newWorkspace('planned');
    await t.store.db
      .updateTable('workspaces')
      .set({ plan_voice_minutes: 100, plan_sessions: 2, plan_calls: null })
      .where('id', '=', workspaceId)
      .execute();
    await rec(workspaceId, 'voice_minutes', 12.345, '2026-11-01T08:00:00Z');
    await rec(workspaceId, 'voice_minutes', 50, '2026-10-31T23:59:59Z'); // last month: not counted
    await rec(workspaceId, 'sessions', 1, '2026-11-01T09:00:00Z');
    await rec(workspaceId, 'sessions', 1, '2026-11-01T09:01:00Z');
    await rec(workspaceId, 'sessions', 1, '2026-11-01T09:02:00Z');
    await rec(workspaceId, 'calls', 1, '2026-11-02T09:00:00Z');
    const res = await t.call('GET', '/api/v1/plan', { key });
    expect((res.data as { data: unknown }).data).toMatchObject({
      allowances: {
        voice_minutes: { limit: 100, used: 12.35, remaining: 87.65 },
        sessions: { limit: 2, used: 3, remaining: 0 },
        calls: { limit: null, used: 1, remaining: null },
      },
    });
    // The first workspace sees none of this.
    const other = await t.call('GET', '/api/v1/plan');
    expect(
      (other.data as { data: { allowances: { calls: { used: number } } } }).data.allowances.calls.used,
    ).toBe(0);
  });

  it('needs usage:read (403 naming it) and a key (401)', async () => {
    const readOnly = await keyWithScopes(t, ['read']);
    const denied = await t.call('GET', '/api/v1/plan', { key: readOnly });
    expect(denied.statusCode).toBe(403);
    expect(denied.data).toEqual({ message: 'This action needs an API key with the "usage:read" scope.' });
    expect((await t.call('GET', '/api/v1/plan', { key: null })).statusCode).toBe(401);
  });
});
