import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { consumeQuota, type QuotaKind } from '../../src/modules/usage/quota.service.js';
import { recordUsage } from '../../src/modules/usage/usage.service.js';
import { setPlan, type PlanAllowances } from '../../src/modules/workspaces/workspaces.service.js';
import { QuotaExceededError } from '../../src/shared/errors.js';
import { inTransaction } from '../../src/store/database.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';

const UNLIMITED: PlanAllowances = { voice_minutes: null, sessions: null, calls: null };

describe.each(storeKinds())('plan quotas on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  async function workspaceWith(plan: Partial<PlanAllowances>): Promise<string> {
    const ws = await t.newWorkspace('quota');
    await setPlan(t.deps, ws.workspaceId, { ...UNLIMITED, ...plan });
    return ws.workspaceId;
  }

  const consume = (workspaceId: string, kind: QuotaKind) =>
    inTransaction(t.store.db, (trx) => consumeQuota(trx, t.deps, { workspaceId, projectId: null, kind }));

  async function refusal(workspaceId: string, kind: QuotaKind): Promise<QuotaExceededError> {
    const err = await consume(workspaceId, kind).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QuotaExceededError);
    return err as QuotaExceededError;
  }

  it('admits sessions up to the allowance, then refuses naming allowance, usage and reset', async () => {
    t.clock.set('2026-11-02T10:00:00Z');
    const ws = await workspaceWith({ sessions: 2 });
    await consume(ws, 'sessions');
    await consume(ws, 'sessions');
    const err = await refusal(ws, 'sessions');
    expect(err.status).toBe(402);
    expect(err.errors).toEqual({
      quota: ['The plan allows 2 sessions per month; 2 used this period. It resets at 2026-12-01T00:00:00Z.'],
    });
    // The refused attempt recorded nothing; calls are a separate allowance (unlimited here).
    await consume(ws, 'calls');
    const usage = await t.services.usage.report(
      { workspaceId: ws, keyId: 'k', scopes: new Set(['usage:read']) },
      {},
    );
    expect(usage.metrics).toMatchObject({ sessions: 2, calls: 1 });
  });

  it('starts a fresh allowance when the UTC month rolls over', async () => {
    t.clock.set('2026-11-30T23:59:59Z');
    const ws = await workspaceWith({ calls: 1 });
    await consume(ws, 'calls');
    await refusal(ws, 'calls');
    t.clock.set('2026-12-01T00:00:00Z');
    await consume(ws, 'calls');
    const err = await refusal(ws, 'calls');
    expect(err.errors?.quota?.[0]).toBe(
      'The plan allows 1 call per month; 1 used this period. It resets at 2027-01-01T00:00:00Z.',
    );
    t.clock.set('2026-11-02T10:00:00Z');
  });

  it('refuses calls once the voice minutes are used up, even with calls left', async () => {
    t.clock.set('2026-11-15T12:00:00Z');
    const ws = await workspaceWith({ calls: 100, voice_minutes: 10 });
    await recordUsage(t.store.db, {
      workspaceId: ws,
      projectId: null,
      metric: 'voice_minutes',
      provider: null,
      quantity: 9.5,
      at: Date.parse('2026-11-10T00:00:00Z'),
    });
    await consume(ws, 'calls'); // 9.5 of 10 minutes used: still admitted
    await recordUsage(t.store.db, {
      workspaceId: ws,
      projectId: null,
      metric: 'voice_minutes',
      provider: null,
      quantity: 0.75,
      at: Date.parse('2026-11-15T11:00:00Z'),
    });
    const err = await refusal(ws, 'calls');
    expect(err.errors?.quota?.[0]).toBe(
      'The plan allows 10 voice minutes per month; 10.25 used this period. It resets at 2026-12-01T00:00:00Z.',
    );
    // Sessions do not draw on voice minutes.
    await consume(ws, 'sessions');
    t.clock.set('2026-11-02T10:00:00Z');
  });

  it('never refuses an unlimited plan; a zero allowance refuses at once', async () => {
    const free = await workspaceWith({});
    for (let i = 0; i < 25; i++) await consume(free, i % 2 ? 'calls' : 'sessions');
    const none = await workspaceWith({ sessions: 0 });
    const err = await refusal(none, 'sessions');
    expect(err.errors?.quota?.[0]).toContain('0 sessions per month; 0 used');
  });

  it('rolls the recorded unit back with the creating transaction', async () => {
    const ws = await workspaceWith({ sessions: 1 });
    await expect(
      inTransaction(t.store.db, async (trx) => {
        await consumeQuota(trx, t.deps, { workspaceId: ws, projectId: null, kind: 'sessions' });
        throw new Error('the create failed after the quota check');
      }),
    ).rejects.toThrow('the create failed');
    await consume(ws, 'sessions');
    await refusal(ws, 'sessions');
  });

  it('lets exactly the allowance through when creates race', async () => {
    const ws = await workspaceWith({ sessions: 5, calls: 3 });
    const attempts = 24;
    const results = await Promise.allSettled(
      Array.from({ length: attempts }, (_, i) => consume(ws, i % 2 ? 'calls' : 'sessions')),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter(
      (r) => r.status === 'rejected' && r.reason instanceof QuotaExceededError,
    ).length;
    expect(ok).toBe(8);
    expect(refused).toBe(attempts - 8);
    const usage = await t.services.usage.report(
      { workspaceId: ws, keyId: 'k', scopes: new Set(['usage:read']) },
      {},
    );
    expect(usage.metrics).toMatchObject({ sessions: 5, calls: 3 });
  });

  it('renders a refusal as 402 with errors.quota', async () => {
    const ws = await workspaceWith({ calls: 0 });
    const app = Fastify();
    registerErrorHandling(app);
    app.post('/calls', async () => {
      await consume(ws, 'calls');
      return { data: {} };
    });
    const res = await app.inject({ method: 'POST', url: '/calls' });
    await app.close();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      message: 'The plan quota is exhausted.',
      errors: {
        quota: ['The plan allows 0 calls per month; 0 used this period. It resets at 2026-12-01T00:00:00Z.'],
      },
    });
  });
});
