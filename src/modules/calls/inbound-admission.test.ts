import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPlan } from '../workspaces/workspaces.service.js';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { callEvents, callRow, callWorld, invite, type CallWorld } from '../../../test/support/calls.js';
import { createPublishedWorkflow, registerNumber } from '../../../test/support/fixtures.js';
import { storeKinds } from '../../../test/support/stores.js';
import { observeTelemetry, type TelemetryEvent } from '../../shared/telemetry.js';
import { admitInbound, sipLabelOf, type Admission } from './inbound-admission.js';
import { e164FromSipUser } from './phone-session.js';

function accepted(a: Admission): Extract<Admission, { kind: 'accept' }> {
  if (a.kind !== 'accept') throw new Error(`expected accept, got ${a.status} (${a.why})`);
  return a;
}

async function countCalls(t: TestApi): Promise<number> {
  const r = await t.store.db
    .selectFrom('calls')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('reading SIP users and hosts', () => {
  it('reads numbers as E.164 and refuses what is not one', () => {
    expect(e164FromSipUser('+14155550100')).toBe('+14155550100');
    expect(e164FromSipUser('14155550100;npdi;rn=+14155550000')).toBe('+14155550100');
    expect(e164FromSipUser('%2B1-415-555-0100')).toBe('+14155550100');
    expect(e164FromSipUser('004930123456')).toBe('+4930123456');
    expect(e164FromSipUser('alice')).toBeNull();
    expect(e164FromSipUser('+0123')).toBeNull();
    expect(e164FromSipUser(null)).toBeNull();
  });

  it('takes the workspace label off the request-URI host', () => {
    expect(sipLabelOf('ws-0a1b2c3d4e.sip.localhost', 'sip.localhost')).toBe('ws-0a1b2c3d4e');
    expect(sipLabelOf('WS-0A1B2C3D4E.SIP.localhost.', 'sip.localhost')).toBe('ws-0a1b2c3d4e');
    expect(sipLabelOf('sip.localhost', 'sip.localhost')).toBeNull();
    expect(sipLabelOf('ws-1.other.example', 'sip.localhost')).toBeNull();
    expect(sipLabelOf('a.b.sip.localhost', 'sip.localhost')).toBeNull();
  });
});

describe.each(storeKinds())('inbound admission on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  const deps = () => t.deps;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t);
  });
  afterAll(() => t.close());

  it('admits a call: ringing inbound record, pending phone session, latest version, seeds, one calls unit', async () => {
    // A second publish: the latest published version is the one that runs.
    const pub = await t.call('POST', `/api/v1/workflows/${w.workflowId}/publish`);
    expect(pub.statusCode).toBe(200);
    const a = accepted(await admitInbound(deps(), invite(w, { sipCallId: 'abc@carrier' })));
    expect(a.workflowVersion).toBe(2);
    expect(a.variables).toEqual({ greeting: 'hi' });
    expect(a.graph.nodes.map((n) => n.id)).toEqual(['start', 'hello', 'bye']);
    const call = await callRow(t, a.call.id);
    expect(call).toMatchObject({
      direction: 'inbound',
      status: 'ringing',
      from_number: '+4930123456',
      to_number: w.number,
      project_id: w.projectId,
      workflow_id: w.workflowId,
      workflow_version: 2,
      session_id: a.session.id,
      phone_number_id: w.numberId,
      sip_call_id: 'abc@carrier',
      hangup_reason: null,
    });
    const session = await t.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', a.session.id)
      .executeTakeFirstOrThrow();
    expect(session).toMatchObject({
      channel: 'phone',
      status: 'pending',
      call_id: call.id,
      workflow_version: 2,
    });
    expect(JSON.parse(session.variables)).toEqual({ greeting: 'hi' });
    const units = await t.store.db
      .selectFrom('usage_events')
      .selectAll()
      .where('metric', '=', 'calls')
      .execute();
    expect(units).toHaveLength(1);
    expect(await callEvents(t, call.id)).toEqual([]);
  });

  it('records the admitting node on the call, a refusal it records too, and keeps it out of the API', async () => {
    // A node id other than the test config's own, so only a written config.nodeId can match.
    const nodeB = { ...deps(), config: { ...deps().config, nodeId: 'sip-b.example:5062' } };
    const a = accepted(await admitInbound(nodeB, invite(w)));
    expect(a.call.node_id).toBe('sip-b.example:5062');
    expect(await callRow(t, a.call.id)).toMatchObject({ node_id: 'sip-b.example:5062' });
    const refused = await admitInbound(nodeB, invite(w, { requestUriUser: '+14155550161' }));
    expect(refused).toMatchObject({ kind: 'reject', status: 404 });
    await registerNumber(t, t.workspaceId, w.projectId, '+14155550162', []);
    const unrouted = await admitInbound(nodeB, invite(w, { requestUriUser: '+14155550162' }));
    if (unrouted.kind !== 'reject' || !unrouted.call) throw new Error('expected a recorded refusal');
    expect(unrouted.call).toMatchObject({ status: 'failed', node_id: 'sip-b.example:5062' });
    const [ended] = await callEvents(t, unrouted.call.id);
    expect(ended?.data).not.toHaveProperty('node_id');
  });

  it("keeps carrier_a's call and account ids in the call's metadata, and takes its asserted caller", async () => {
    const callSid = 'CA' + '12'.repeat(16);
    const accountSid = 'AC' + '34'.repeat(16);
    const carrierHeaders = { 'x-twilio-callsid': callSid, 'x-twilio-accountsid': accountSid };
    // On a generic trunk the same header fields are nobody's business.
    const generic = accepted(await admitInbound(deps(), invite(w, { carrierHeaders })));
    expect(JSON.parse((await callRow(t, generic.call.id)).metadata)).toEqual({});
    const a = await callWorld(t, '+14155550177');
    await t.store.db
      .updateTable('sip_trunks')
      .set({ provider: 'carrier_a' })
      .where('id', '=', a.trunkId)
      .execute();
    const call = accepted(
      await admitInbound(
        deps(),
        invite(a, { fromUser: 'anonymous', assertedUser: '+4930555111', carrierHeaders }),
      ),
    ).call;
    const row = await callRow(t, call.id);
    expect(JSON.parse(row.metadata)).toEqual({
      carrier_call_sid: callSid,
      carrier_account_sid: accountSid,
    });
    expect(row.from_number).toBe('+4930555111');
  });

  it('finds the number in the request URI, else in To, in the forms carriers send', async () => {
    accepted(await admitInbound(deps(), invite(w, { requestUriUser: '14155550100;npdi' })));
    accepted(await admitInbound(deps(), invite(w, { requestUriUser: null, toUser: '+1-415-555-0100' })));
  });

  it('answers 404 for a host that is not a workspace of ours, without a record', async () => {
    const before = await countCalls(t);
    for (const host of [
      'ws-ffffffffff.sip.localhost',
      'sip.localhost',
      '203.0.113.1',
      w.host.replace('localhost', 'example'),
    ]) {
      const a = await admitInbound(deps(), invite(w, { requestUriHost: host }));
      expect(a).toMatchObject({ kind: 'reject', status: 404, reason: 'Not Found' });
    }
    expect(await countCalls(t)).toBe(before);
  });

  it('answers 404 for a number that is not registered, and at once after its DELETE', async () => {
    expect(
      await admitInbound(deps(), invite(w, { requestUriUser: '+14155550199', toUser: null })),
    ).toMatchObject({
      kind: 'reject',
      status: 404,
    });
    const other = await registerNumber(t, t.workspaceId, w.projectId, '+14155550123', [
      { workflow_id: w.workflowId, priority: 100, variables: {} },
    ]);
    accepted(await admitInbound(deps(), invite(w, { requestUriUser: '+14155550123' })));
    const del = await t.call('DELETE', `/api/v1/phone-numbers/${other.numberId}`);
    expect(del.statusCode).toBe(204);
    const before = await countCalls(t);
    expect(await admitInbound(deps(), invite(w, { requestUriUser: '+14155550123' }))).toMatchObject({
      kind: 'reject',
      status: 404,
    });
    expect(await countCalls(t)).toBe(before);
  });

  it("checks the source against the called number's trunk, and answers strangers 403 whatever they dial", async () => {
    const t2 = await startTestApi(kind);
    try {
      const a = await callWorld(t2, '+14155550100');
      const b = await registerNumber(t2, t2.workspaceId, a.projectId, '+14155550101', [
        { workflow_id: a.workflowId, priority: 100, variables: {} },
      ]);
      await t2.store.db
        .updateTable('sip_trunks')
        .set({ allowed_ips: '["203.0.113.0/24"]' })
        .where('id', '=', a.trunkId)
        .execute();
      await t2.store.db
        .updateTable('sip_trunks')
        .set({ allowed_ips: '["192.0.2.0/24"]' })
        .where('id', '=', b.trunkId)
        .execute();
      const d = t2.deps;
      accepted(await admitInbound(d, invite(a, { sourceIp: '203.0.113.77' })));
      accepted(await admitInbound(d, invite(a, { sourceIp: '::ffff:203.0.113.77' })));
      expect(await admitInbound(d, invite(a, { sourceIp: '192.0.2.5' }))).toMatchObject({
        kind: 'reject',
        status: 403,
        reason: 'Forbidden',
      });
      accepted(await admitInbound(d, invite(a, { sourceIp: '192.0.2.5', requestUriUser: '+14155550101' })));
      expect(
        await admitInbound(d, invite(a, { sourceIp: '198.51.100.1', requestUriUser: '+14155550101' })),
      ).toMatchObject({ status: 403 });
      // Unknown number: 404 only for a source some trunk admits.
      expect(
        await admitInbound(d, invite(a, { sourceIp: '192.0.2.5', requestUriUser: '+14155550999' })),
      ).toMatchObject({ status: 404 });
      expect(
        await admitInbound(d, invite(a, { sourceIp: '198.51.100.1', requestUriUser: '+14155550999' })),
      ).toMatchObject({ status: 403 });
    } finally {
      await t2.close();
    }
  });

  it("dispatches by time window and caller id, anonymous callers included, at the clock's now", async () => {
    const afterHours = await createPublishedWorkflow(t, w.projectId);
    const vip = await createPublishedWorkflow(t, w.projectId);
    const withheld = await createPublishedWorkflow(t, w.projectId);
    await registerNumber(t, t.workspaceId, w.projectId, '+14155550150', [
      {
        workflow_id: afterHours,
        priority: 10,
        variables: { mode: 'night' },
        time_window: {
          days: ['mon', 'tue', 'wed', 'thu', 'fri'],
          start: '18:00',
          end: '09:00',
          timezone: 'America/New_York',
        },
      },
      {
        workflow_id: vip,
        priority: 20,
        variables: { mode: 'vip' },
        caller_id: { allow: ['+49'], block: ['+4930999'] },
      },
      { workflow_id: withheld, priority: 30, variables: {}, caller_id: { allow: ['anonymous'] } },
    ]);
    const at = (ip: Partial<Parameters<typeof invite>[1]>) =>
      admitInbound(deps(), invite(w, { requestUriUser: '+14155550150', ...ip }));
    // Monday 05:00 in New York belongs to Sunday's night, which the rule does not list.
    expect(accepted(await at({})).call.workflow_id).toBe(vip);
    t.clock.set('2026-11-03T10:00:00Z'); // Tuesday 05:00 in New York: Monday's night window
    expect(accepted(await at({})).call.workflow_id).toBe(afterHours);
    t.clock.set('2026-11-02T16:00:00Z'); // Monday 11:00 in New York
    const a = accepted(await at({ fromUser: '+4930123456' }));
    expect(a.call.workflow_id).toBe(vip);
    expect(a.variables).toEqual({ mode: 'vip' });
    expect(await at({ fromUser: '+4930999111' })).toMatchObject({ kind: 'reject', status: 480 });
    const anon = accepted(await at({ fromUser: '+4930123456', privacy: 'id' }));
    expect(anon.call.workflow_id).toBe(withheld);
    expect(anon.call.from_number).toBe('anonymous');
    expect(
      accepted(await at({ fromUser: 'anonymous', fromHost: 'anonymous.invalid' })).call.workflow_id,
    ).toBe(withheld);
    t.clock.set('2026-11-02T10:00:00Z');
  });

  it('refuses with 480 when no rule matches: a failed record and call.ended no_dispatch_rule', async () => {
    await registerNumber(t, t.workspaceId, w.projectId, '+14155550160', [
      { workflow_id: w.workflowId, priority: 100, variables: {}, caller_id: { allow: ['+1'] } },
    ]);
    const a = await admitInbound(deps(), invite(w, { requestUriUser: '+14155550160' }));
    if (a.kind !== 'reject') throw new Error('expected a refusal');
    expect(a).toMatchObject({ status: 480, reason: 'Temporarily Unavailable' });
    expect(a.call).toMatchObject({
      direction: 'inbound',
      status: 'failed',
      hangup_reason: 'no_dispatch_rule',
      workflow_id: null,
      session_id: null,
      duration_seconds: 0,
    });
    const events = await callEvents(t, a.call!.id);
    expect(events.map((e) => e.type)).toEqual(['call.ended']);
    expect(events[0]!.data).toMatchObject({
      status: 'failed',
      hangup_reason: 'no_dispatch_rule',
      duration_seconds: 0,
      from: '+4930123456',
      to: '+14155550160',
    });
    const sessions = await t.store.db
      .selectFrom('sessions')
      .select('id')
      .where('call_id', '=', a.call!.id)
      .execute();
    expect(sessions).toEqual([]);
  });

  it('refuses with 480 and workflow_unpublished when the winning workflow was never published', async () => {
    const res = await t.call('POST', '/api/v1/workflows', {
      body: { project_id: w.projectId, name: 'draft' },
    });
    const draft = (res.data as { data: { id: string } }).data.id;
    await registerNumber(t, t.workspaceId, w.projectId, '+14155550170', [
      { workflow_id: draft, priority: 1, variables: {} },
    ]);
    const a = await admitInbound(deps(), invite(w, { requestUriUser: '+14155550170' }));
    expect(a).toMatchObject({
      kind: 'reject',
      status: 480,
      call: { status: 'failed', hangup_reason: 'workflow_unpublished', workflow_id: draft },
    });
  });

  it('refuses with 480 and quota_exhausted once the calls allowance is used, without taking a unit', async () => {
    const t2 = await startTestApi(kind);
    try {
      const w2 = await callWorld(t2);
      await setPlan(t2.deps, t2.workspaceId, { calls: 1, sessions: null, voice_minutes: null });
      accepted(await admitInbound(t2.deps, invite(w2)));
      const a = await admitInbound(t2.deps, invite(w2));
      expect(a).toMatchObject({
        kind: 'reject',
        status: 480,
        call: { status: 'failed', hangup_reason: 'quota_exhausted', workflow_id: w2.workflowId },
      });
      if (a.kind !== 'reject') return;
      expect((await callEvents(t2, a.call!.id)).map((e) => e.data.hangup_reason)).toEqual([
        'quota_exhausted',
      ]);
      const units = await t2.store.db
        .selectFrom('usage_events')
        .select('id')
        .where('metric', '=', 'calls')
        .execute();
      expect(units).toHaveLength(1);
    } finally {
      await t2.close();
    }
  });

  it('lets exactly the allowance through when calls arrive at once', async () => {
    const t2 = await startTestApi(kind);
    try {
      const w2 = await callWorld(t2);
      await setPlan(t2.deps, t2.workspaceId, { calls: 2, sessions: null, voice_minutes: null });
      const all = await Promise.all([1, 2, 3, 4, 5].map(() => admitInbound(t2.deps, invite(w2))));
      expect(all.filter((a) => a.kind === 'accept')).toHaveLength(2);
      expect(all.filter((a) => a.kind === 'reject' && a.status === 480)).toHaveLength(3);
    } finally {
      await t2.close();
    }
  });

  it('answers 503 while draining, before touching the store', async () => {
    const before = await countCalls(t);
    const a = await admitInbound({ ...deps(), draining: () => true }, invite(w));
    expect(a).toMatchObject({ kind: 'reject', status: 503, reason: 'Service Unavailable' });
    expect(await countCalls(t)).toBe(before);
  });

  it('tells the metrics why each refused call was refused, and nothing for an admitted one', async () => {
    const events: TelemetryEvent[] = [];
    const stop = observeTelemetry((e) => events.push(e));
    try {
      await admitInbound({ ...deps(), draining: () => true }, invite(w));
      await admitInbound(deps(), invite(w, { requestUriHost: 'sip.example.org' }));
      await admitInbound(deps(), invite(w, { requestUriHost: 'ws-ffffffffff.sip.localhost' }));
      await admitInbound(deps(), invite(w, { requestUriUser: '+14155550198', toUser: null }));
      accepted(await admitInbound(deps(), invite(w)));
    } finally {
      stop();
    }
    expect(events.filter((e) => e.kind === 'call.refused')).toEqual([
      { kind: 'call.refused', reason: 'draining' },
      { kind: 'call.refused', reason: 'unknown_domain' },
      { kind: 'call.refused', reason: 'unknown_workspace' },
      { kind: 'call.refused', reason: 'unknown_number' },
    ]);
  });
  it('an INVITE on a registered Contact: the trunk names the workspace and, unnamed, its one number', async () => {
    const contact = { requestUriHost: '192.0.2.10', requestUriUser: 'acct', toUser: 'acct' };
    // Registration off: the trunk's id in our Contact admits nothing.
    const off = await admitInbound(deps(), invite(w, { ...contact, registeredTrunkId: w.trunkId }));
    expect(off).toMatchObject({ kind: 'reject', status: 404 });
    await t.store.db.updateTable('sip_trunks').set({ register: 1 }).where('id', '=', w.trunkId).execute();
    try {
      const a = accepted(await admitInbound(deps(), invite(w, { ...contact, registeredTrunkId: w.trunkId })));
      expect((await callRow(t, a.call.id)).to_number).toBe(w.number);
      const named = accepted(
        await admitInbound(deps(), invite(w, { requestUriHost: '192.0.2.10', registeredTrunkId: w.trunkId })),
      );
      expect((await callRow(t, named.call.id)).phone_number_id).toBe(w.numberId);
      // Without the trunk, the same host names no workspace.
      expect(await admitInbound(deps(), invite(w, contact))).toMatchObject({ kind: 'reject', status: 404 });
    } finally {
      await t.store.db.updateTable('sip_trunks').set({ register: 0 }).where('id', '=', w.trunkId).execute();
    }
  });
});
