import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../../src/modules/usage/usage.service.js';
import type { UsageMetric } from '../../src/modules/usage/usage-metrics.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';

const ZERO = {
  voice_minutes: 0,
  calls: 0,
  sessions: 0,
  llm_input_tokens: 0,
  llm_output_tokens: 0,
  stt_seconds: 0,
  tts_characters: 0,
};

describe.each(storeKinds())('usage on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  const rec = (
    workspaceId: string,
    metric: UsageMetric,
    quantity: number,
    at: string,
    extra: { projectId?: string | null; provider?: string | null } = {},
  ) =>
    recordUsage(t.store.db, {
      workspaceId,
      projectId: extra.projectId ?? null,
      provider: extra.provider ?? null,
      metric,
      quantity,
      at: Date.parse(at),
    });

  it('reports every metric, zero when nothing was used, for this month so far by default', async () => {
    const ws = await t.newWorkspace('empty usage');
    const res = await t.call('GET', '/api/v1/usage', { key: ws.key });
    expect(res.statusCode).toBe(200);
    expect(res.data).toEqual({ data: { from: '2026-11-01', to: '2026-11-02', metrics: ZERO } });
  });

  it('sums each metric over the inclusive UTC date range, workspace-scoped', async () => {
    const ws = await t.newWorkspace('usage sums');
    const other = await t.newWorkspace('usage other');
    await rec(ws.workspaceId, 'voice_minutes', 1.5, '2026-10-01T00:00:00.000Z');
    await rec(ws.workspaceId, 'voice_minutes', 2.255, '2026-10-31T23:59:59.999Z');
    await rec(ws.workspaceId, 'voice_minutes', 100, '2026-11-01T00:00:00.000Z'); // day after `to`
    await rec(ws.workspaceId, 'voice_minutes', 100, '2026-09-30T23:59:59.999Z'); // day before `from`
    await rec(ws.workspaceId, 'llm_input_tokens', 120, '2026-10-05T10:00:00Z', { provider: 'llm_vendor_1' });
    await rec(ws.workspaceId, 'llm_output_tokens', 30, '2026-10-05T10:00:00Z', { provider: 'llm_vendor_1' });
    await rec(ws.workspaceId, 'stt_seconds', 12.4, '2026-10-05T10:00:00Z');
    await rec(ws.workspaceId, 'tts_characters', 512, '2026-10-06T10:00:00Z');
    await rec(ws.workspaceId, 'calls', 1, '2026-10-06T10:00:00Z');
    await rec(ws.workspaceId, 'sessions', 1, '2026-10-06T10:00:00Z');
    await rec(ws.workspaceId, 'sessions', 1, '2026-10-07T10:00:00Z');
    await rec(other.workspaceId, 'calls', 50, '2026-10-06T10:00:00Z');

    const res = await t.call('GET', '/api/v1/usage?from=2026-10-01&to=2026-10-31', { key: ws.key });
    expect(res.statusCode).toBe(200);
    expect(res.data).toEqual({
      data: {
        from: '2026-10-01',
        to: '2026-10-31',
        metrics: {
          voice_minutes: 3.76,
          calls: 1,
          sessions: 2,
          llm_input_tokens: 120,
          llm_output_tokens: 30,
          stt_seconds: 12,
          tts_characters: 512,
        },
      },
    });
    const explicit = await t.call('GET', '/api/v1/usage?from=2026-10-01&to=2026-10-31&group_by=metric', {
      key: ws.key,
    });
    expect(explicit.data).toEqual(res.data);
    // `to` alone: from defaults to the first of that month.
    const toOnly = await t.call('GET', '/api/v1/usage?to=2026-10-31', { key: ws.key });
    expect(toOnly.data).toEqual(res.data);
  });

  it('groups by day (every day of the range), project and provider', async () => {
    const ws = await t.newWorkspace('usage groups');
    const p1 = '01900000-0000-7000-8000-000000000001';
    const p2 = '01900000-0000-7000-8000-000000000002';
    await rec(ws.workspaceId, 'llm_input_tokens', 10, '2026-10-01T08:00:00Z', {
      projectId: p2,
      provider: 'llm_vendor_2',
    });
    await rec(ws.workspaceId, 'llm_input_tokens', 5, '2026-10-01T09:00:00Z', {
      projectId: p1,
      provider: 'llm_vendor_1',
    });
    await rec(ws.workspaceId, 'tts_characters', 7, '2026-10-03T23:59:59.999Z', {
      projectId: p1,
      provider: 'tts_vendor_1',
    });
    await rec(ws.workspaceId, 'calls', 1, '2026-10-03T12:00:00Z', { projectId: p1 });
    await rec(ws.workspaceId, 'sessions', 1, '2026-10-03T12:00:00Z');

    const q = '/api/v1/usage?from=2026-10-01&to=2026-10-03&group_by=';
    const total = { ...ZERO, llm_input_tokens: 15, tts_characters: 7, calls: 1, sessions: 1 };
    const day = await t.call('GET', `${q}day`, { key: ws.key });
    expect(day.statusCode).toBe(200);
    expect(day.data).toEqual({
      data: {
        from: '2026-10-01',
        to: '2026-10-03',
        group_by: 'day',
        metrics: total,
        groups: [
          { day: '2026-10-01', metrics: { ...ZERO, llm_input_tokens: 15 } },
          { day: '2026-10-02', metrics: ZERO },
          { day: '2026-10-03', metrics: { ...ZERO, tts_characters: 7, calls: 1, sessions: 1 } },
        ],
      },
    });

    const project = await t.call('GET', `${q}project`, { key: ws.key });
    expect(project.data).toEqual({
      data: {
        from: '2026-10-01',
        to: '2026-10-03',
        group_by: 'project',
        metrics: total,
        groups: [
          { project_id: p1, metrics: { ...ZERO, llm_input_tokens: 5, tts_characters: 7, calls: 1 } },
          { project_id: p2, metrics: { ...ZERO, llm_input_tokens: 10 } },
          { project_id: null, metrics: { ...ZERO, sessions: 1 } },
        ],
      },
    });

    const provider = await t.call('GET', `${q}provider`, { key: ws.key });
    expect(provider.data).toEqual({
      data: {
        from: '2026-10-01',
        to: '2026-10-03',
        group_by: 'provider',
        metrics: total,
        groups: [
          { provider: 'llm_vendor_1', metrics: { ...ZERO, llm_input_tokens: 5 } },
          { provider: 'llm_vendor_2', metrics: { ...ZERO, llm_input_tokens: 10 } },
          { provider: 'tts_vendor_1', metrics: { ...ZERO, tts_characters: 7 } },
          { provider: null, metrics: { ...ZERO, calls: 1, sessions: 1 } },
        ],
      },
    });
  });

  it('answers 422 for malformed dates, from after to, too long a span, unknown group_by', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01&to=2026-12-31', 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=20261001', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-10-02&to=2026-10-01', 'from'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
      ['group_by=week', 'group_by'],
    ];
    for (const [query, field] of cases) {
      const res = await t.call('GET', `/api/v1/usage?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.data, query).toMatchObject({
        message: expect.any(String),
        errors: { [field]: expect.any(Array) },
      });
    }
    const week = await t.call('GET', '/api/v1/usage?group_by=week');
    expect(week.data).toMatchObject({
      errors: { group_by: ['must be one of: metric, day, project, provider'] },
    });
    const feb = await t.call('GET', '/api/v1/usage?from=2026-02-30');
    expect(feb.data).toMatchObject({ errors: { from: ['must be a real date of the form YYYY-MM-DD'] } });
    const longest = await t.call('GET', '/api/v1/usage?from=2024-01-01&to=2024-12-31');
    expect(longest.statusCode).toBe(200);
  });

  it('needs the usage:read scope', async () => {
    const created = await t.call('POST', '/api/v1/api-keys', {
      body: { name: 'reader', scopes: ['read', 'write'] },
    });
    const key = (created.data as { data: { key: string } }).data.key;
    const res = await t.call('GET', '/api/v1/usage', { key });
    expect(res.statusCode).toBe(403);
    expect((await t.call('GET', '/api/v1/usage', { key: null })).statusCode).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/api/v1/openapi.json', { key: null })).data as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/usage', '/api/v1/conversations', '/api/v1/conversations/{id}']),
    );
  });
});
