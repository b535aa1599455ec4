import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../../../modules/calls/dialer.js';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callEvents, callRow, callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import type { OutboundCall } from './outbound-call.js';
import type { RunnableCall } from '../../../modules/calls/phone-session.js';
import { SipDialer } from './sip-dialer.js';
import { ScriptedLeg } from '../../../../test/support/scripted-leg.js';

describe.each(storeKinds())('outbound calls on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let dialer: SipDialer;
  const legs: ScriptedLeg[] = [];
  const answered: RunnableCall[] = [];

  beforeAll(async () => {
    // POST /calls reads the dialer's node, as it does from TelephonyNode.dialer in serve.
    const late: Dialer = {
      get nodeId() {
        return dialer.nodeId;
      },
      dial: (c) => dialer.dial(c),
      cancel: (id) => dialer.cancel(id),
    };
    t = await startTestApi(kind, { overrides: { dialer: late } });
    w = await callWorld(t);
    dialer = new SipDialer(
      t.deps,
      () => {
        const leg = new ScriptedLeg();
        legs.push(leg);
        return leg;
      },
      { onAnswered: (run) => answered.push(run) },
    );
  });
  afterAll(() => t.close());

  /** POST /calls, then waits until the INVITE is out. */
  async function place(): Promise<{ id: string; leg: ScriptedLeg; call: OutboundCall }> {
    const res = await t.call('POST', '/api/v1/calls', {
      body: {
        project_id: w.projectId,
        workflow_id: w.workflowId,
        from: w.number,
        to: '+14155550999',
        variables: { order: 'A-17' },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.data as { data: { id: string; status: string } }).data.id;
    expect((res.data as { data: { status: string } }).data.status).toBe('queued');
    const call = dialer.find(id)!;
    await call.idle();
    return { id, leg: legs[legs.length - 1]!, call };
  }

  const status = async (id: string) => {
    const r = await callRow(t, id);
    return [r.status, r.hangup_reason];
  };
  const eventKinds = async (id: string) =>
    (await callEvents(t, id)).map((e) => [e.type, e.data.status, e.data.hangup_reason]);

  it("sends the INVITE through the number's trunk with its credentials and caller ID", async () => {
    const { id, leg, call } = await place();
    expect(leg.target).toEqual({
      uri: 'sip:+14155550999@carrier.example.test',
      host: 'carrier.example.test',
      port: null,
      transport: 'udp',
    });
    expect(leg.options).toEqual({
      from: w.number,
      auth: { username: 'user', password: 'secret' },
      callId: id,
    });
    expect(call.cancel()).toBe(true);
    await call.idle();
  });

  it("records the dialing node (this process's SWITCHBOARD_NODE_ID) on the queued call", async () => {
    const { id, call } = await place();
    expect(dialer.nodeId).toBe(t.deps.config.nodeId);
    expect(await callRow(t, id)).toMatchObject({ status: 'queued', node_id: t.deps.config.nodeId });
    expect(call.cancel()).toBe(true);
    await call.idle();
  });

  it('answer: ringing on 180, in_progress with call.started and a phone session on 200, callee_hangup on BYE', async () => {
    const { id, leg, call } = await place();
    leg.events.provisional(100);
    await call.idle();
    expect(await status(id)).toEqual(['queued', null]);
    leg.events.provisional(180);
    await call.idle();
    expect(await status(id)).toEqual(['ringing', null]);
    t.clock.advance(4_000);
    leg.events.final(200, { withCredentials: true });
    await call.idle();
    const row = await callRow(t, id);
    expect(row).toMatchObject({ status: 'in_progress', started_at: new Date(t.clock.now()).toISOString() });
    const run = answered.find((r) => r.call.id === id)!;
    expect(run.session).toMatchObject({ channel: 'phone', status: 'active', call_id: id });
    expect(run.variables).toEqual({ order: 'A-17' });
    expect(row.session_id).toBe(run.session.id);
    // The ring timer is gone: the connected call outlives it.
    t.clock.advance(61_000);
    await call.idle();
    expect(call.state).toBe('answered');
    leg.events.bye();
    await call.idle();
    expect(await callRow(t, id)).toMatchObject({
      status: 'completed',
      hangup_reason: 'callee_hangup',
      duration_seconds: 61,
    });
    expect(await eventKinds(id)).toEqual([
      ['call.started', 'in_progress', null],
      ['call.ended', 'completed', 'callee_hangup'],
    ]);
    const session = await t.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', run.session.id)
      .executeTakeFirstOrThrow();
    expect(session).toMatchObject({ status: 'ended', end_reason: 'caller_hangup' });
    expect(dialer.find(id)).toBeUndefined();
  });

  it('a hangup node ends a connected call with BYE and workflow_hangup', async () => {
    const { id, leg, call } = await place();
    leg.events.final(200, { withCredentials: false });
    await call.idle();
    t.clock.advance(10_000);
    expect(call.hangup('workflow')).toBe(true);
    await call.idle();
    expect(leg.byes).toBe(1);
    expect(await status(id)).toEqual(['completed', 'workflow_hangup']);
  });

  it.each([
    ['busy', 486, true, 'busy', 'busy'],
    ['busy everywhere', 600, false, 'busy', 'busy'],
    ['401 after our credentials', 401, true, 'failed', 'trunk_auth_failed'],
    ['404', 404, false, 'failed', 'invalid_number'],
    ['503', 503, false, 'failed', 'carrier_error'],
  ] as const)('%s ends the call with no workflow run', async (_name, code, withCredentials, s, reason) => {
    const { id, leg, call } = await place();
    leg.events.provisional(183);
    leg.events.final(code, { withCredentials });
    await call.idle();
    expect(await status(id)).toEqual([s, reason]);
    expect(await eventKinds(id)).toEqual([['call.ended', s, reason]]);
    expect((await callRow(t, id)).session_id).toBeNull();
    expect(answered.some((r) => r.call.id === id)).toBe(false);
  });

  it('no answer within the default 30 s ring timeout: CANCEL, no_answer / ring_timeout, no workflow', async () => {
    const { id, leg, call } = await place();
    leg.events.provisional(180);
    await call.idle();
    t.clock.advance(29_999);
    await call.idle();
    expect(await status(id)).toEqual(['ringing', null]);
    expect(leg.cancels).toBe(0);
    t.clock.advance(1);
    await call.idle();
    expect(leg.cancels).toBe(1);
    expect(await status(id)).toEqual(['no_answer', 'ring_timeout']);
    // The 487 to our CANCEL, and a 200 that crossed it, change nothing; the 200's dialog is closed.
    leg.events.final(487, { withCredentials: true });
    leg.events.final(200, { withCredentials: true });
    await call.idle();
    expect(leg.byes).toBe(1);
    expect(await eventKinds(id)).toEqual([['call.ended', 'no_answer', 'ring_timeout']]);
    expect((await callRow(t, id)).session_id).toBeNull();
  });

  it('DELETE-style cancel before the answer: CANCEL, cancelled / caller_cancelled', async () => {
    const { id, leg, call } = await place();
    leg.events.provisional(180);
    await dialer.cancel(id);
    expect(leg.cancels).toBe(1);
    leg.events.final(487, { withCredentials: true });
    await call.idle();
    expect(await eventKinds(id)).toEqual([['call.ended', 'cancelled', 'caller_cancelled']]);
    expect(call.cancel()).toBe(false);
  });

  it('a transport timeout before any answer is carrier_error', async () => {
    const { id, leg, call } = await place();
    leg.events.transportError(new Error('timer B'));
    await call.idle();
    expect(await status(id)).toEqual(['failed', 'carrier_error']);
  });

  it('a call whose number is gone fails with carrier_error; one cancelled before its INVITE sends none', async () => {
    const res = await t.call('POST', '/api/v1/calls', {
      body: { project_id: w.projectId, workflow_id: w.workflowId, from: w.number, to: '+14155550999' },
    });
    const row = await callRow(t, (res.data as { data: { id: string } }).data.id);
    await dialer.find(row.id)!.idle();
    const orphan = { ...row, id: t.deps.newId(), phone_number_id: null, status: 'queued' };
    await t.store.db.insertInto('calls').values(orphan).execute();
    const before = legs.length;
    dialer.dial(orphan);
    await dialer.find(orphan.id)!.idle();
    expect(await status(orphan.id)).toEqual(['failed', 'carrier_error']);
    expect(legs[before]!.target).toBeUndefined();

    const early = { ...row, id: t.deps.newId(), status: 'queued' };
    await t.store.db.insertInto('calls').values(early).execute();
    dialer.dial(early);
    const call = dialer.find(early.id)!;
    expect(call.cancel()).toBe(true);
    await call.idle();
    expect(legs[before + 1]!.target).toBeUndefined();
    expect(legs[before + 1]!.cancels).toBe(0);
    expect(await status(early.id)).toEqual(['cancelled', 'caller_cancelled']);
  });

  it('a trunk whose health checks find it down fails the call at once with trunk_unreachable', async () => {
    const down = (health: string) =>
      t.store.db
        .updateTable('sip_trunks')
        .set({ health_check: 1, health })
        .where('id', '=', w.trunkId)
        .execute();
    await down('down');
    try {
      const before = legs.length;
      const res = await t.call('POST', '/api/v1/calls', {
        body: { project_id: w.projectId, workflow_id: w.workflowId, from: w.number, to: '+14155550999' },
      });
      const id = (res.data as { data: { id: string } }).data.id;
      await dialer.find(id)?.idle();
      expect(await status(id)).toEqual(['failed', 'trunk_unreachable']);
      expect(legs[before]!.target).toBeUndefined();
      expect(await eventKinds(id)).toEqual([['call.ended', 'failed', 'trunk_unreachable']]);
      // Up again (or unknown): calls go out.
      await down('unknown');
      const { call } = await place();
      expect(call.cancel()).toBe(true);
      await call.idle();
    } finally {
      await t.store.db
        .updateTable('sip_trunks')
        .set({ health_check: 0, health: null })
        .where('id', '=', w.trunkId)
        .execute();
    }
  });

  it('shutdown cancels what rings and hangs up what is connected', async () => {
    const ringing = await place();
    const connected = await place();
    connected.leg.events.final(200, { withCredentials: false });
    await connected.call.idle();
    await dialer.closeAll();
    expect(ringing.leg.cancels).toBe(1);
    expect(connected.leg.byes).toBe(1);
    expect(await status(ringing.id)).toEqual(['cancelled', 'shutdown']);
    expect(await status(connected.id)).toEqual(['completed', 'shutdown']);
  });
});
