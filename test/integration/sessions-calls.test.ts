import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateCall } from '../../src/modules/calls/calls.schema.js';
import { markAnswered } from '../../src/modules/calls/call-lifecycle.js';
import { CallsService } from '../../src/modules/calls/calls.service.js';
import type { Dialer } from '../../src/modules/calls/dialer.js';
import { verifyJoinToken } from '../../src/modules/sessions/join-token.js';
import { expireUnjoinedSessions } from '../../src/modules/sessions/session-lifecycle.js';
import { setPlan } from '../../src/modules/workspaces/workspaces.service.js';
import { inTransaction } from '../../src/store/database.js';
import type { CallTable } from '../../src/store/schema.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow, registerNumber } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

type One = { data: Record<string, unknown> };
type List = { data: Record<string, unknown>[]; meta: { total: number } };

class RecordingDialer implements Dialer {
  /** Another node's id than the test config's: the row must get the dialer's. */
  readonly nodeId = 'sip-a.example:5060';
  readonly dialed: CallTable[] = [];
  dial(call: CallTable): void {
    this.dialed.push(call);
  }
}

describe.each(storeKinds())('sessions on $name', (kind) => {
  let t: TestApi;
  let projectId: string;
  let workflowId: string;
  beforeAll(async () => {
    t = await startTestApi(kind);
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId);
  });
  afterAll(() => t.close());

  it('mints a web session with a join token that GET never returns', async () => {
    const res = await t.call('POST', '/api/v1/sessions', {
      body: {
        project_id: projectId,
        workflow_id: workflowId,
        variables: { name: 'Ann' },
        metadata: { order: 42, vip: true },
      },
    });
    expect(res.statusCode).toBe(201);
    const s = (res.data as One).data;
    expect(s).toMatchObject({
      project_id: projectId,
      workflow_id: workflowId,
      workflow_version: 1,
      channel: 'web',
      status: 'pending',
      metadata: { order: 42, vip: true },
      end_reason: null,
      realtime_url: `ws://localhost:8080/api/v1/sessions/${s.id}/realtime`,
      join_url: `http://localhost:8080/join#token=${s.join_token as string}`,
    });
    const claims = await verifyJoinToken(t.deps.keys.joinToken, s.join_token as string, t.clock.now());
    expect(claims).toMatchObject({ sessionId: s.id, workspaceId: t.workspaceId });
    // A plain JWT: issued now (not in the future), expiring after the configured hour.
    const payload = JSON.parse(
      Buffer.from((s.join_token as string).split('.')[1]!, 'base64url').toString('utf8'),
    ) as { iat: number; exp: number };
    expect(payload.iat).toBe(Math.floor(t.clock.now() / 1000));
    expect(payload.exp - payload.iat).toBe(3600);
    expect(
      await verifyJoinToken(t.deps.keys.joinToken, s.join_token as string, t.clock.now() + 3601_000),
    ).toBeNull();

    const got = await t.call('GET', `/api/v1/sessions/${s.id}`);
    expect(got.body).not.toContain(s.join_token as string);
    expect((got.data as One).data).not.toHaveProperty('join_token');
  });

  it('GET /join-info tells a browser with the join token what it needs, and why a token fails', async () => {
    const s = (
      (await t.call('POST', '/api/v1/sessions', { body: { project_id: projectId, workflow_id: workflowId } }))
        .data as One
    ).data;
    const token = s.join_token as string;
    const info = await t.call('GET', '/api/v1/join-info', { key: token });
    expect(info.statusCode).toBe(200);
    expect(info.headers['access-control-allow-origin']).toBe('*');
    expect(info.headers['cache-control']).toBe('no-store');
    expect((info.data as One).data).toEqual({
      session_id: s.id,
      status: 'pending',
      end_reason: null,
      realtime_url: s.realtime_url,
      join_token_expires_at: s.join_token_expires_at,
      ice_servers: [],
    });
    expect(info.body).not.toContain(token);

    // Any site may ask (the widget runs on the customer's), with the token in a header.
    const preflight = await t.call('OPTIONS', '/api/v1/join-info', {
      key: null,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('Authorization');

    const none = await t.call('GET', '/api/v1/join-info', { key: null });
    expect(none.statusCode).toBe(401);
    // An API key is not a join token.
    expect((await t.call('GET', '/api/v1/join-info')).statusCode).toBe(401);
    const forged = await t.call('GET', '/api/v1/join-info', { key: token.slice(0, -4) + 'AAAA' });
    expect(forged.statusCode).toBe(401);
    expect(forged.data).toMatchObject({ message: 'The join token is not valid.' });

    t.clock.advance(3601_000);
    const expired = await t.call('GET', '/api/v1/join-info', { key: token });
    expect(expired.statusCode).toBe(401);
    expect(expired.data).toMatchObject({ message: 'The join token has expired; ask for a new one.' });
  });

  it('answers 422 for an unpublished workflow and for bad metadata', async () => {
    const draft = (
      (await t.call('POST', '/api/v1/workflows', { body: { project_id: projectId, name: 'draft' } }))
        .data as One
    ).data;
    const res = await t.call('POST', '/api/v1/sessions', {
      body: { project_id: projectId, workflow_id: draft.id },
    });
    expect(res.statusCode).toBe(422);
    expect(res.data).toMatchObject({ errors: { workflow_id: [expect.stringContaining('published')] } });
    const meta: Record<string, number> = {};
    for (let i = 0; i < 21; i++) meta[`k${i}`] = i;
    const tooMany = await t.call('POST', '/api/v1/sessions', {
      body: { project_id: projectId, workflow_id: workflowId, metadata: meta },
    });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.data).toMatchObject({ errors: { metadata: expect.any(Array) } });
    const nested = await t.call('POST', '/api/v1/sessions', {
      body: { project_id: projectId, workflow_id: workflowId, metadata: { a: { b: 1 } } },
    });
    expect(nested.statusCode).toBe(422);
  });

  it('force-ends a session once, writing session.ended to the outbox', async () => {
    const s = (
      (
        await t.call('POST', '/api/v1/sessions', {
          body: { project_id: projectId, workflow_id: workflowId, metadata: { ref: 'x' } },
        })
      ).data as One
    ).data;
    t.clock.advance(5000);
    expect((await t.call('DELETE', `/api/v1/sessions/${s.id}`)).statusCode).toBe(204);
    const ended = ((await t.call('GET', `/api/v1/sessions/${s.id}`)).data as One).data;
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'force_ended', duration_seconds: 0 });
    expect((await t.call('DELETE', `/api/v1/sessions/${s.id}`)).statusCode).toBe(204);

    const events = await t.store.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('type', '=', 'session.ended')
      .execute();
    const mine = events.map((e) => JSON.parse(e.body)).filter((b) => b.data.id === s.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      type: 'session.ended',
      project_id: projectId,
      data: { id: s.id, end_reason: 'force_ended', duration_seconds: 0, metadata: { ref: 'x' } },
    });
  });

  it('filters by project, channel and status, and hides foreign sessions', async () => {
    const list = (await t.call('GET', `/api/v1/sessions?status=ended&channel=web&project_id=${projectId}`))
      .data as List;
    expect(list.data.length).toBeGreaterThan(0);
    expect(list.data.every((x) => x.status === 'ended' && x.channel === 'web')).toBe(true);
    expect((await t.call('GET', '/api/v1/sessions?status=bogus')).statusCode).toBe(422);
    const id = list.data[0]!.id;
    const other = await t.newWorkspace('o');
    expect((await t.call('GET', `/api/v1/sessions/${id}`, { key: other.key })).statusCode).toBe(404);
    expect((await t.call('DELETE', `/api/v1/sessions/${id}`, { key: other.key })).statusCode).toBe(404);
    const foreign = await t.call('POST', '/api/v1/sessions', {
      key: other.key,
      body: { project_id: projectId, workflow_id: workflowId },
    });
    expect(foreign.statusCode).toBe(422);
  });

  it('answers 402 naming the allowance when the sessions quota is used up, until the period rolls over', async () => {
    const ws = await t.newWorkspace('quota');
    const p = await createProject(t, ws.key);
    const wf = await createPublishedWorkflow(t, p, ws.key);
    await setPlan(t.deps, ws.workspaceId, { voice_minutes: null, sessions: 1, calls: null });
    const body = { project_id: p, workflow_id: wf };
    expect((await t.call('POST', '/api/v1/sessions', { key: ws.key, body })).statusCode).toBe(201);
    const denied = await t.call('POST', '/api/v1/sessions', { key: ws.key, body });
    expect(denied.statusCode).toBe(402);
    const quota = (denied.data as { errors: { quota: string[] } }).errors.quota[0]!;
    expect(quota).toMatch(/session/);
    expect(quota).toMatch(/1/);
    expect(quota).toMatch(/2026-12-01T00:00:00Z/);
    t.clock.set('2026-12-01T00:00:00Z');
    expect((await t.call('POST', '/api/v1/sessions', { key: ws.key, body })).statusCode).toBe(201);
  });
});

describe.each(storeKinds())('calls on $name', (kind) => {
  let t: TestApi;
  let dialer: RecordingDialer;
  let projectId: string;
  let workflowId: string;
  beforeAll(async () => {
    dialer = new RecordingDialer();
    t = await startTestApi(kind, { overrides: { dialer } });
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId);
    await registerNumber(t, t.workspaceId, projectId, '+14155550100');
  });
  afterAll(() => t.close());

  const body = (over: Record<string, unknown> = {}) => ({
    project_id: projectId,
    workflow_id: workflowId,
    from: '+14155550100',
    to: '+442071838750',
    ...over,
  });

  it('creates a queued outbound call and hands it to the dialer', async () => {
    const res = await t.call('POST', '/api/v1/calls', { body: body({ metadata: { crm: 'abc' } }) });
    expect(res.statusCode).toBe(201);
    const call = (res.data as One).data;
    expect(call).toMatchObject({
      status: 'queued',
      direction: 'outbound',
      from: '+14155550100',
      to: '+442071838750',
      workflow_id: workflowId,
      workflow_version: 1,
      metadata: { crm: 'abc' },
      hangup_reason: null,
      duration_seconds: null,
    });
    expect(dialer.dialed.map((c) => c.id)).toContain(call.id);
    expect(((await t.call('GET', `/api/v1/calls/${call.id}`)).data as One).data).toEqual(call);
    expect(call).not.toHaveProperty('node_id');
  });

  it("writes the dialer's node on the queued row; a dialer that places no calls leaves it null", async () => {
    const res = await t.call('POST', '/api/v1/calls', { body: body() });
    const id = (res.data as One).data.id as string;
    expect(dialer.dialed.find((c) => c.id === id)?.node_id).toBe('sip-a.example:5060');
    const row = () => t.store.db.selectFrom('calls').select('node_id').where('id', '=', id);
    expect(await row().executeTakeFirst()).toEqual({ node_id: 'sip-a.example:5060' });

    // No SIP in the process (UnavailableDialer has no nodeId either): no node holds the call.
    const noSip = new CallsService(t.deps, { dial: () => undefined });
    const actor = { workspaceId: t.workspaceId, keyId: 'k', scopes: new Set(['write'] as const) };
    const other = await noSip.create(actor, body() as CreateCall);
    const stored = await t.store.db
      .selectFrom('calls')
      .select('node_id')
      .where('id', '=', other.id)
      .executeTakeFirst();
    expect(stored).toEqual({ node_id: null });
  });

  it('validates E.164, the registered from number and the published workflow', async () => {
    const bad = await t.call('POST', '/api/v1/calls', { body: body({ to: '0207 183 8750', from: '+1' }) });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys((bad.data as { errors: object }).errors).sort()).toEqual(['from', 'to']);
    const unregistered = await t.call('POST', '/api/v1/calls', { body: body({ from: '+14155550199' }) });
    expect(unregistered.data).toMatchObject({ errors: { from: [expect.stringContaining('registered')] } });
    const draft = (
      (await t.call('POST', '/api/v1/workflows', { body: { project_id: projectId, name: 'd' } })).data as One
    ).data;
    const unpublished = await t.call('POST', '/api/v1/calls', { body: body({ workflow_id: draft.id }) });
    expect(unpublished.data).toMatchObject({ errors: { workflow_id: expect.any(Array) } });
    const before = dialer.dialed.length;
    expect(before).toBeGreaterThan(0);
    expect(dialer.dialed.length).toBe(before);
  });

  it('lists with filters; from/to take E.164 with + encoded or not', async () => {
    await t.call('POST', '/api/v1/calls', { body: body({ to: '+14155550123' }) });
    for (const q of ['to=%2B14155550123', 'to=+14155550123']) {
      const list = (await t.call('GET', `/api/v1/calls?${q}`)).data as List;
      expect(
        list.data.map((c) => c.to),
        q,
      ).toEqual(['+14155550123']);
    }
    const byStatus = (
      await t.call('GET', `/api/v1/calls?status=queued&direction=outbound&from=%2B14155550100`)
    ).data as List;
    expect(byStatus.meta.total).toBeGreaterThanOrEqual(2);
    expect(((await t.call('GET', '/api/v1/calls?direction=inbound')).data as List).meta.total).toBe(0);
  });

  it('DELETE cancels a queued outbound call once (call.ended, caller_cancelled); 409 after, 404 foreign', async () => {
    const call = ((await t.call('POST', '/api/v1/calls', { body: body() })).data as One).data;
    const other = await t.newWorkspace('cancel');
    expect((await t.call('DELETE', `/api/v1/calls/${call.id}`, { key: other.key })).statusCode).toBe(404);
    const res = await t.call('DELETE', `/api/v1/calls/${call.id}`);
    expect(res.statusCode).toBe(204);
    const after = ((await t.call('GET', `/api/v1/calls/${call.id}`)).data as One).data;
    expect(after).toMatchObject({ status: 'cancelled', hangup_reason: 'caller_cancelled' });
    const again = await t.call('DELETE', `/api/v1/calls/${call.id}`);
    expect(again.statusCode).toBe(409);
    expect(again.data).toMatchObject({ message: expect.stringMatching(/cancelled/) });
    const ended = await t.deps.db
      .selectFrom('webhook_events')
      .select('body')
      .where('type', '=', 'call.ended')
      .execute();
    const mine = ended.map((e) => JSON.parse(e.body) as { data: Record<string, unknown> });
    expect(mine.filter((e) => e.data.id === call.id || e.data.call_id === call.id)).toHaveLength(1);
  });

  it('DELETE of a call answered between the check and the cancel is 409, and tells no other node', async () => {
    const actor = { workspaceId: t.workspaceId, keyId: 'k', scopes: new Set(['write'] as const) };
    const published: unknown[] = [];
    const events = { publish: async (e: unknown) => void published.push(e) };
    // Another node's callee picks up just as the cancel is handled: the dialer finds it answered.
    const racing: Dialer = {
      dial: () => undefined,
      cancel: async (id) => {
        await inTransaction(t.deps.db, (trx) => markAnswered(trx, t.deps, id));
        return false;
      },
    };
    const service = new CallsService(t.deps, racing, events);
    const call = await service.create(actor, body() as CreateCall);
    await expect(service.cancel(actor, call.id)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/in_progress/),
    });
    expect((await service.get(actor, call.id)).status).toBe('in_progress');
    expect(published).toEqual([]);
  });

  it('answers 402 when the calls allowance is used up, and hides foreign calls', async () => {
    const ws = await t.newWorkspace('q');
    const p = await createProject(t, ws.key);
    const wf = await createPublishedWorkflow(t, p, ws.key);
    await registerNumber(t, ws.workspaceId, p, '+14155550100');
    await setPlan(t.deps, ws.workspaceId, { voice_minutes: null, sessions: null, calls: 0 });
    const denied = await t.call('POST', '/api/v1/calls', {
      key: ws.key,
      body: { ...body(), project_id: p, workflow_id: wf },
    });
    expect(denied.statusCode).toBe(402);
    expect(denied.data).toMatchObject({
      message: expect.any(String),
      errors: { quota: [expect.stringMatching(/calls/)] },
    });
    const mine = ((await t.call('GET', '/api/v1/calls')).data as List).data[0]!;
    expect((await t.call('GET', `/api/v1/calls/${mine.id}`, { key: ws.key })).statusCode).toBe(404);
  });
});

describe.each(storeKinds())('unjoined session expiry on $name', (kind) => {
  it('ends a minted session nobody joined once its join token has expired, exactly once', async () => {
    const t = await startTestApi(kind);
    try {
      const projectId = await createProject(t);
      const workflowId = await createPublishedWorkflow(t, projectId);
      const mint = async () =>
        (
          (
            await t.call('POST', '/api/v1/sessions', {
              body: { project_id: projectId, workflow_id: workflowId },
            })
          ).data as One
        ).data.id as string;
      const old = await mint();
      t.clock.advance(3000 * 1000);
      const fresh = await mint();
      expect(await expireUnjoinedSessions(t.deps)).toBe(0);
      t.clock.advance(600 * 1000 + 1); // old one is now past the 3600 s token lifetime
      expect(await expireUnjoinedSessions(t.deps)).toBe(1);
      expect(await expireUnjoinedSessions(t.deps)).toBe(0);
      expect(((await t.call('GET', `/api/v1/sessions/${old}`)).data as One).data).toMatchObject({
        status: 'ended',
        end_reason: 'timeout',
        duration_seconds: 0,
      });
      expect(((await t.call('GET', `/api/v1/sessions/${fresh}`)).data as One).data.status).toBe('pending');
      const events = await t.store.db
        .selectFrom('webhook_events')
        .select('body')
        .where('type', '=', 'session.ended')
        .execute();
      expect(events.filter((e) => JSON.parse(e.body).data.id === old)).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
