import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from './dialer.js';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { callEvents, callRow, callWorld, invite, type CallWorld } from '../../../test/support/calls.js';
import { storeKinds } from '../../../test/support/stores.js';
import { CallRecordsService } from './call-records.service.js';
import { admitInbound } from './inbound-admission.js';
import { closeStaleCalls, sweptStatus } from './call-sweep.js';

describe('sweptStatus', () => {
  it.each([
    ['queued', 'server_restart', 'failed'],
    ['ringing', 'server_restart', 'failed'],
    ['in_progress', 'server_restart', 'completed'],
    ['queued', 'shutdown', 'cancelled'],
    ['ringing', 'shutdown', 'cancelled'],
    ['in_progress', 'shutdown', 'completed'],
  ] as const)('%s swept for %s → %s', (status, reason, expected) => {
    expect(sweptStatus(status, reason)).toBe(expected);
  });
});

describe.each(storeKinds())('restart recovery on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  const idle: Dialer = { dial: () => undefined };
  beforeAll(async () => {
    t = await startTestApi(kind, { overrides: { dialer: idle } });
    w = await callWorld(t);
  });
  afterAll(() => t.close());

  const admit = async () => {
    const a = await admitInbound(t.deps, invite(w));
    if (a.kind !== 'accept') throw new Error(a.why);
    return a;
  };
  const session = (id: string) =>
    t.store.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('closes every live call and its session with server_restart, emits call.ended once, meters nothing', async () => {
    const progress = new CallRecordsService(t.deps);
    const ringing = await admit();
    const connected = await admit();
    await progress.answered(connected.call.id);
    const done = await admit();
    await progress.answered(done.call.id);
    t.clock.advance(20_000);
    await progress.ended(done.call.id, 'remote');
    const post = await t.call('POST', '/api/v1/calls', {
      body: { project_id: w.projectId, workflow_id: w.workflowId, from: w.number, to: '+14155550999' },
    });
    const queued = (post.data as { data: { id: string } }).data.id;
    // A phone session whose call is already over (its ending was lost with the process).
    const orphan = await admit();
    await t.store.db
      .updateTable('calls')
      .set({ status: 'completed' })
      .where('id', '=', orphan.call.id)
      .execute();
    const minutesBefore = await t.store.db
      .selectFrom('usage_events')
      .select('id')
      .where('metric', '=', 'voice_minutes')
      .execute();

    t.clock.advance(300_000);
    expect(await closeStaleCalls(t.deps)).toEqual({ calls: 3, orphanSessions: 1 });

    expect(await callRow(t, ringing.call.id)).toMatchObject({
      status: 'failed',
      hangup_reason: 'server_restart',
    });
    expect(await callRow(t, connected.call.id)).toMatchObject({
      status: 'completed',
      hangup_reason: 'server_restart',
      duration_seconds: 320,
    });
    expect(await callRow(t, queued)).toMatchObject({ status: 'failed', hangup_reason: 'server_restart' });
    expect(await callRow(t, done.call.id)).toMatchObject({
      status: 'completed',
      hangup_reason: 'caller_hangup',
    });
    for (const id of [ringing.call.id, connected.call.id, queued]) {
      const ended = (await callEvents(t, id)).filter((e) => e.type === 'call.ended');
      expect(ended.map((e) => e.data.hangup_reason)).toEqual(['server_restart']);
    }
    for (const s of [ringing.session.id, connected.session.id, orphan.session.id]) {
      expect(await session(s)).toMatchObject({ status: 'ended', end_reason: 'client_disconnected' });
    }
    expect(await session(done.session.id)).toMatchObject({ end_reason: 'caller_hangup' });
    const minutesAfter = await t.store.db
      .selectFrom('usage_events')
      .select('id')
      .where('metric', '=', 'voice_minutes')
      .execute();
    expect(minutesAfter.length).toBe(minutesBefore.length);
    const live = await t.store.db
      .selectFrom('calls')
      .select('id')
      .where('status', 'in', ['queued', 'ringing', 'in_progress'])
      .execute();
    expect(live).toEqual([]);

    expect(await closeStaleCalls(t.deps)).toEqual({ calls: 0, orphanSessions: 0 });
  });

  it('with reason shutdown, unconnected calls are cancelled and connected ones completed', async () => {
    const progress = new CallRecordsService(t.deps);
    const ringing = await admit();
    const connected = await admit();
    await progress.answered(connected.call.id);
    expect(await closeStaleCalls(t.deps, 'shutdown')).toEqual({ calls: 2, orphanSessions: 0 });
    expect(await callRow(t, ringing.call.id)).toMatchObject({
      status: 'cancelled',
      hangup_reason: 'shutdown',
    });
    expect(await callRow(t, connected.call.id)).toMatchObject({
      status: 'completed',
      hangup_reason: 'shutdown',
    });
  });

  it("as node A ends A's live calls and those of no node, and leaves node B's up, webhooks included", async () => {
    const as = (nodeId: string) => ({ ...t.deps, config: { ...t.deps.config, nodeId } });
    const [a, b] = [as('sip-a.example:5060'), as('sip-b.example:5060')];
    const admitOn = async (deps: typeof a) => {
      const r = await admitInbound(deps, invite(w));
      if (r.kind !== 'accept') throw new Error(r.why);
      return r;
    };
    const aRinging = await admitOn(a);
    const aConnected = await admitOn(a);
    await new CallRecordsService(a).answered(aConnected.call.id);
    const bRinging = await admitOn(b);
    const bConnected = await admitOn(b);
    await new CallRecordsService(b).answered(bConnected.call.id);
    // A row from before migration 006: live, no node.
    const legacy = await admitOn(b);
    await t.store.db.updateTable('calls').set({ node_id: null }).where('id', '=', legacy.call.id).execute();
    // B's call ended but its session's ending was lost: any node may end such a session.
    const bOver = await admitOn(b);
    await t.store.db.updateTable('calls').set({ status: 'failed' }).where('id', '=', bOver.call.id).execute();

    expect(await closeStaleCalls(a)).toEqual({ calls: 3, orphanSessions: 1 });

    for (const id of [aRinging.call.id, aConnected.call.id, legacy.call.id]) {
      expect(await callRow(t, id)).toMatchObject({ hangup_reason: 'server_restart' });
      const ended = (await callEvents(t, id)).filter((e) => e.type === 'call.ended');
      expect(ended.map((e) => e.data.hangup_reason)).toEqual(['server_restart']);
    }
    expect(await callRow(t, bRinging.call.id)).toMatchObject({ status: 'ringing', hangup_reason: null });
    expect(await callRow(t, bConnected.call.id)).toMatchObject({ status: 'in_progress', ended_at: null });
    for (const r of [bRinging, bConnected]) {
      expect((await callEvents(t, r.call.id)).map((e) => e.type)).not.toContain('call.ended');
    }
    expect(await session(bRinging.session.id)).toMatchObject({ status: 'pending', end_reason: null });
    expect(await session(bConnected.session.id)).toMatchObject({ status: 'active', end_reason: null });
    expect(await session(bOver.session.id)).toMatchObject({ status: 'ended' });

    // B's own sweep (the end of its drain) is the one that ends B's calls.
    expect(await closeStaleCalls(b, 'shutdown')).toEqual({ calls: 2, orphanSessions: 0 });
    expect(await callRow(t, bRinging.call.id)).toMatchObject({
      status: 'cancelled',
      hangup_reason: 'shutdown',
    });
    expect(await callRow(t, bConnected.call.id)).toMatchObject({
      status: 'completed',
      hangup_reason: 'shutdown',
    });
    expect(await closeStaleCalls(a)).toEqual({ calls: 0, orphanSessions: 0 });
  });
});
