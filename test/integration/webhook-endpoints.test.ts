import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from 'undici';
import { AddressPolicy } from '../../src/events/address-policy.js';
import { createGuardedAgent, type Resolver } from '../../src/events/ssrf-guard.js';
import { verifyWebhook } from '../../src/events/verify-webhook.js';
import { WebhookWorker } from '../../src/events/webhook-worker.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { storeKinds } from '../support/stores.js';

type Json = Record<string, unknown>;
type One = { data: Json };
type List = { data: Json[]; meta: Json };

const fakeDns: Resolver = async (host) => {
  const table: Record<string, string> = {
    'hooks.internal.test': '127.0.0.1',
    'public.example.test': '93.184.216.34',
  };
  return table[host] ? [{ address: table[host]!, family: 4 }] : [];
};

describe.each(storeKinds())('webhook endpoints API on $name', (kind) => {
  let t: TestApi;
  let receiver: Receiver;
  let agent: Agent;
  let projectId: string;
  let worker: WebhookWorker;

  beforeAll(async () => {
    t = await startTestApi(kind, {
      config: { webhookAllowedCidrs: ['127.0.0.0/8'] },
      overrides: { webhookResolver: fakeDns },
    });
    receiver = await startReceiver();
    agent = createGuardedAgent({ policy: new AddressPolicy(['127.0.0.0/8']) });
    projectId = await createProject(t);
    worker = new WebhookWorker({
      store: t.store,
      clock: t.clock,
      logger: silentLogger(),
      dispatcher: agent,
      secrets: t.deps.secretBox,
      notifier: { endpointPaused: async () => undefined, close: () => undefined },
      random: () => 0.5,
    });
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await t.close();
  });
  beforeEach(() => receiver.reset());

  const create = async (body: Json, key?: string) =>
    t.call('POST', '/api/v1/webhook-endpoints', { body, key });
  const hookUrl = () => `${receiver.url}/hook`;
  const drain = async () => {
    while ((await worker.runOnce()) > 0);
  };

  it('creates an endpoint with a whsec_ secret shown only once, and reads, lists, updates, deletes it', async () => {
    const res = await create({
      project_id: projectId,
      url: hookUrl(),
      events: ['session.ended'],
      description: 'crm',
    });
    expect(res.statusCode).toBe(201);
    const ep = (res.data as One).data;
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(ep).toMatchObject({
      project_id: projectId,
      url: hookUrl(),
      events: ['session.ended'],
      status: 'active',
    });

    const got = ((await t.call('GET', `/api/v1/webhook-endpoints/${ep.id}`)).data as One).data;
    expect(got).not.toHaveProperty('secret');
    const { secret: _s, ...rest } = ep;
    expect(got).toEqual(rest);

    const list = (await t.call('GET', `/api/v1/webhook-endpoints?project_id=${projectId}`)).data as List;
    expect(list.data.map((e) => e.id)).toContain(ep.id);
    expect(list.data.every((e) => !('secret' in e))).toBe(true);
    const none = (await t.call('GET', `/api/v1/webhook-endpoints?project_id=${t.deps.newId()}`)).data as List;
    expect(none.data).toHaveLength(0);

    const patched = await t.call('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, {
      body: { events: ['call.started', 'call.ended'], status: 'paused' },
    });
    expect(patched.statusCode).toBe(200);
    expect((patched.data as One).data).toMatchObject({
      events: ['call.started', 'call.ended'],
      status: 'paused',
      paused_reason: 'manual',
    });

    const rotated = await t.call('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect((rotated.data as One).data.secret).toMatch(/^whsec_/);
    expect((rotated.data as One).data.secret).not.toBe(ep.secret);

    expect((await t.call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`)).statusCode).toBe(204);
    expect((await t.call('GET', `/api/v1/webhook-endpoints/${ep.id}`)).statusCode).toBe(404);
  });

  it('validates url, events and project_id (422 keyed by field)', async () => {
    const bad = async (body: Json) => {
      const res = await create({ project_id: projectId, url: hookUrl(), events: ['call.ended'], ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      return (res.data as { errors: Record<string, string[]> }).errors;
    };
    expect(Object.keys(await bad({ events: ['call.exploded'] }))[0]).toMatch(/^events/);
    expect(Object.keys(await bad({ events: [] }))[0]).toMatch(/^events/);
    expect((await bad({ url: 'http://93.184.216.34/hook' })).url![0]).toMatch(/must use https/);
    expect((await bad({ url: 'http://public.example.test/hook' })).url![0]).toMatch(/must use https/);
    expect((await bad({ url: 'https://10.0.0.5/hook' })).url![0]).toMatch(/private address/);
    expect((await bad({ url: 'https://169.254.169.254/latest' })).url![0]).toMatch(/linkLocal/);
    expect((await bad({ url: 'https://[::1]/hook' })).url![0]).toMatch(/loopback|allowed/);
    expect((await bad({ url: 'ftp://example.test/x' })).url![0]).toMatch(/https/);
    expect((await bad({ url: 'https://user:pw@example.test/x' })).url![0]).toMatch(/credentials/);
    expect((await bad({ url: 'not a url' })).url![0]).toMatch(/absolute URL/);
    expect((await bad({ project_id: t.deps.newId() })).project_id).toBeDefined();
    // https to a public name, and http to names and addresses inside WEBHOOK_ALLOWED_CIDRS, are fine.
    for (const url of ['https://public.example.test/in', 'http://hooks.internal.test:8080/in', hookUrl()]) {
      expect((await create({ project_id: projectId, url, events: ['call.ended'] })).statusCode, url).toBe(
        201,
      );
    }
  });

  it('needs write to change and read to look; foreign ids are 404 everywhere', async () => {
    const readKey = (
      (await t.call('POST', '/api/v1/api-keys', { body: { name: 'r', scopes: ['read'] } })).data as One
    ).data.key as string;
    expect(
      (await create({ project_id: projectId, url: hookUrl(), events: ['call.ended'] }, readKey)).statusCode,
    ).toBe(403);
    expect((await t.call('GET', '/api/v1/webhook-endpoints', { key: readKey })).statusCode).toBe(200);

    const other = await t.newWorkspace('other');
    const theirProject = await createProject(t, other.key);
    const theirs = (
      (await create({ project_id: theirProject, url: hookUrl(), events: ['call.ended'] }, other.key))
        .data as One
    ).data.id as string;
    for (const [method, path, body] of [
      ['GET', `/webhook-endpoints/${theirs}`, undefined],
      ['PATCH', `/webhook-endpoints/${theirs}`, { status: 'paused' }],
      ['DELETE', `/webhook-endpoints/${theirs}`, undefined],
      ['GET', `/webhook-endpoints/${theirs}/deliveries`, undefined],
      ['POST', `/webhook-endpoints/${theirs}/rotate-secret`, undefined],
    ] as const) {
      const res = await t.call(method, `/api/v1${path}`, { body });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.data).toEqual({ message: 'Webhook endpoint not found.' });
    }
    expect(
      (await create({ project_id: theirProject, url: hookUrl(), events: ['call.ended'] })).statusCode,
    ).toBe(422);
    const list = (await t.call('GET', '/api/v1/webhook-endpoints?per_page=100')).data as List;
    expect(list.data.map((e) => e.id)).not.toContain(theirs);
  });

  it('delivers session.ended from DELETE /sessions, signed with the secret, and logs every attempt', async () => {
    const project = await createProject(t, t.key, 'e2e');
    const workflowId = await createPublishedWorkflow(t, project);
    const ep = (
      (await create({ project_id: project, url: hookUrl(), events: ['session.ended'] })).data as One
    ).data;
    const session = (
      (
        await t.call('POST', '/api/v1/sessions', {
          body: { project_id: project, workflow_id: workflowId, metadata: { ref: 'A-7' } },
        })
      ).data as One
    ).data;
    expect((await t.call('DELETE', `/api/v1/sessions/${session.id}`)).statusCode).toBe(204);
    await drain();

    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    const event = verifyWebhook(got.body, got.headers, ep.secret as string, { now: t.clock.now() });
    expect(event).toMatchObject({
      type: 'session.ended',
      project_id: project,
      data: { id: session.id, end_reason: 'force_ended', duration_seconds: 0, metadata: { ref: 'A-7' } },
    });

    const log = (await t.call('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`)).data as List;
    expect(log.meta.total).toBe(1);
    const d = log.data[0]!;
    expect(d).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      event: { id: event.id, type: 'session.ended' },
    });
    const [attempt] = d.attempts as Json[];
    expect(attempt).toMatchObject({
      id: got.headers['x-service-delivery'],
      attempt_number: 1,
      request: {
        body: got.body,
        headers: { 'X-Service-Event': 'session.ended', 'User-Agent': 'Service-Webhooks/1.0' },
      },
      response: { status: 204 },
      error: null,
    });
  });

  it('marks a delivery dead after eight failures and redelivers it with the same event id', async () => {
    const project = await createProject(t, t.key, 'dead');
    const ep = ((await create({ project_id: project, url: hookUrl(), events: ['call.ended'] })).data as One)
      .data;
    receiver.respond = (_r, res) => res.writeHead(500).end('nope');
    const { emitEvent } = await import('../../src/events/outbox.js');
    const ev = await t.store.db.transaction().execute((trx) =>
      emitEvent(trx, {
        workspaceId: t.workspaceId,
        projectId: project,
        type: 'call.ended',
        data: { id: 'c' },
        now: t.clock.now(),
      }),
    );
    for (let i = 0; i < 8; i++) {
      await drain();
      t.clock.set(t.clock.now() + 13 * 3_600_000);
    }
    const deliveries = async () =>
      ((await t.call('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`)).data as List).data;
    const [dead] = await deliveries();
    expect(dead).toMatchObject({
      status: 'dead',
      attempt_count: 8,
      last_status_code: 500,
      next_attempt_at: null,
    });
    expect((dead!.attempts as Json[]).map((a) => a.attempt_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((dead!.attempts as Json[])[0]).toMatchObject({
      response: { status: 500, body: 'nope' },
      error: 'endpoint answered 500',
    });

    receiver.reset();
    const again = await t.call('POST', `/api/v1/webhook-deliveries/${dead!.id}/redeliver`);
    expect(again.statusCode).toBe(200);
    expect((again.data as One).data).toMatchObject({ status: 'pending', attempt_count: 8 });
    expect((await t.call('POST', `/api/v1/webhook-deliveries/${dead!.id}/redeliver`)).statusCode).toBe(409);
    await drain();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.body).toBe(ev.body);
    expect(JSON.parse(receiver.received[0]!.body).id).toBe(ev.id);
    const [done] = await deliveries();
    expect(done).toMatchObject({ status: 'succeeded', attempt_count: 9 });

    const other = await t.newWorkspace('x');
    expect(
      (await t.call('POST', `/api/v1/webhook-deliveries/${dead!.id}/redeliver`, { key: other.key }))
        .statusCode,
    ).toBe(404);
  });

  it('keeps events for a paused endpoint as failed deliveries, redeliverable after resuming', async () => {
    const project = await createProject(t, t.key, 'paused');
    const ep = ((await create({ project_id: project, url: hookUrl(), events: ['call.ended'] })).data as One)
      .data;
    await t.call('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { body: { status: 'paused' } });
    const { emitEvent } = await import('../../src/events/outbox.js');
    await t.store.db.transaction().execute((trx) =>
      emitEvent(trx, {
        workspaceId: t.workspaceId,
        projectId: project,
        type: 'call.ended',
        data: {},
        now: t.clock.now(),
      }),
    );
    await drain();
    expect(receiver.received).toHaveLength(0);
    const [d] = (
      (await t.call('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?status=failed`)).data as List
    ).data;
    expect(d).toMatchObject({ status: 'failed', attempt_count: 0, attempts: [] });
    expect(d!.last_error).toMatch(/^endpoint paused/);
    expect((await t.call('POST', `/api/v1/webhook-deliveries/${d!.id}/redeliver`)).statusCode).toBe(409);
    await t.call('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { body: { status: 'active' } });
    expect((await t.call('POST', `/api/v1/webhook-deliveries/${d!.id}/redeliver`)).statusCode).toBe(200);
    await drain();
    expect(receiver.received).toHaveLength(1);
  });
});
