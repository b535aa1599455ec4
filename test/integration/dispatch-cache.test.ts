// The dispatch cache (inbound admission's lookups of a called number: workspace, number with its
// rules, trunk): two nodes on one store, each with its own cache and live-event bus. Node B admits
// calls (its cache fills on the first INVITE); the trunk and the number are edited through node A's
// API. B honours every edit on its very next INVITE, though its cache's time (the fake clock) never
// runs out; an edit that goes round the services (straight to the store, no bus) is not seen by B
// until its entry expires, which shows B answers from its cache.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { followLiveEvents } from '../../src/events/live-follow.js';
import { CallRecordsService } from '../../src/modules/calls/call-records.service.js';
import type { Admission, InboundInvite } from '../../src/modules/calls/inbound-admission.js';
import { workspacesRepo } from '../../src/modules/workspaces/workspaces.repo.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createWiring, type Wiring } from '../../src/wiring/wiring.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeAndBusCases } from '../support/live-buses.js';
import { createProject, createTrunk, createWorkflow } from './testing/telephony.js';

type Json = { data: Record<string, unknown> };

const cases = storeAndBusCases('dispatch');

describe.each(cases)('dispatch cache: edits honoured on every node at once ($name)', ({ store, bus }) => {
  let a: TestApi;
  let b: { wiring: Wiring; records: CallRecordsService };
  let label: string;
  let trunkId: string;
  let projectId: string;
  const closers: Array<() => Promise<unknown> | void> = [];
  let calls = 0;

  beforeAll(async () => {
    const join = bus.network();
    const busA = await join('node-a');
    const busB = await join('node-b');
    a = await startTestApi(store, { overrides: { liveEvents: busA } });
    const wiring = createWiring({
      config: a.deps.config,
      store: a.store,
      logger: silentLogger(),
      clock: a.clock,
    });
    const unfollow = followLiveEvents(busB, { dispatch: wiring.deps.dispatchCache, logger: silentLogger() });
    b = { wiring, records: new CallRecordsService(wiring.deps) };
    closers.push(
      unfollow,
      () => wiring.close(),
      () => busB.close(),
      () => a.close(),
      () => busA.close(),
    );
    label = (await workspacesRepo.find(a.store.db, a.workspaceId))!.sip_label;
    trunkId = (await createTrunk(a, { allowed_ips: ['192.0.2.0/24'] })).id as string;
    projectId = await createProject(a);
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });

  const publishedWorkflow = async () => {
    const id = await createWorkflow(a, projectId);
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'bye', type: 'hangup', config: {} },
      ],
      edges: [{ source: 'start', target: 'bye' }],
    };
    expect((await a.call('PATCH', `/api/v1/workflows/${id}`, { body: { graph } })).statusCode).toBe(200);
    const res = await a.call('POST', `/api/v1/workflows/${id}/publish`);
    expect(res.statusCode, res.body).toBe(200);
    return id;
  };
  const newNumber = async (number: string, workflowId: string) => {
    const res = await a.call('POST', '/api/v1/phone-numbers', {
      body: {
        number,
        sip_trunk_id: trunkId,
        project_id: projectId,
        dispatch_rules: [{ workflow_id: workflowId }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.data as Json).data.id as string;
  };
  const invite = (number: string, sourceIp = '192.0.2.10'): InboundInvite => ({
    requestUriHost: `${label}.${a.deps.config.sip.domain}`,
    requestUriUser: number,
    toUser: number,
    fromUser: '+15550001111',
    fromHost: 'carrier.test',
    privacy: null,
    sourceIp,
    sipCallId: `call-${++calls}@carrier.test`,
  });
  const admitOnB = (number: string, sourceIp?: string): Promise<Admission> =>
    b.records.admit(invite(number, sourceIp));
  const workflowOf = (admission: Admission) =>
    admission.kind === 'accept' ? admission.call.workflow_id : `refused ${admission.status}`;

  it('answers a known number from the cache on the next INVITE', async () => {
    const workflow = await publishedWorkflow();
    await newNumber('+14155550101', workflow);
    expect(workflowOf(await admitOnB('+14155550101'))).toBe(workflow);
    expect(b.wiring.deps.dispatchCache?.get(label, '+14155550101')?.number.number).toBe('+14155550101');

    // Round the services (no bus): B keeps answering from its cache until the entry expires.
    const other = await publishedWorkflow();
    await a.store.db
      .updateTable('phone_numbers')
      .set({ dispatch_rules: JSON.stringify([{ workflow_id: other }]) })
      .where('number', '=', '+14155550101')
      .execute();
    expect(workflowOf(await admitOnB('+14155550101'))).toBe(workflow);
    await a.clock.advanceAsync(61_000);
    expect(workflowOf(await admitOnB('+14155550101'))).toBe(other);
  });

  it("takes a number's new dispatch rules made through another node", async () => {
    const first = await publishedWorkflow();
    const second = await publishedWorkflow();
    const id = await newNumber('+14155550102', first);
    expect(workflowOf(await admitOnB('+14155550102'))).toBe(first);

    const res = await a.call('PATCH', `/api/v1/phone-numbers/${id}`, {
      body: { dispatch_rules: [{ workflow_id: second }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    // The bus's message may still be on its way (Redis); the cache's own time never runs out here.
    await vi.waitFor(async () => expect(workflowOf(await admitOnB('+14155550102'))).toBe(second));
  });

  it("refuses a source the trunk's new allowed_ips leave out, and a deleted number", async () => {
    const workflow = await publishedWorkflow();
    const id = await newNumber('+14155550103', workflow);
    expect(workflowOf(await admitOnB('+14155550103', '192.0.2.20'))).toBe(workflow);

    const patched = await a.call('PATCH', `/api/v1/sip-trunks/${trunkId}`, {
      body: { allowed_ips: ['198.51.100.0/24'] },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    await vi.waitFor(async () =>
      expect(workflowOf(await admitOnB('+14155550103', '192.0.2.20'))).toBe('refused 403'),
    );
    expect(workflowOf(await admitOnB('+14155550103', '198.51.100.7'))).toBe(workflow);

    expect((await a.call('DELETE', `/api/v1/phone-numbers/${id}`)).statusCode).toBe(204);
    await vi.waitFor(async () =>
      expect(workflowOf(await admitOnB('+14155550103', '198.51.100.7'))).toBe('refused 404'),
    );
  });
});
