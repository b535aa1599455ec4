import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../../modules/calls/dialer.js';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { callEvents, callRow, callWorld, invite, type CallWorld } from '../../../test/support/calls.js';
import { storeKinds } from '../../../test/support/stores.js';
import { CallProgress } from './call-progress.js';
import { admitInbound } from './inbound-admission.js';
import { closeStaleCalls, sweptStatus } from './recover-calls.js';

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
    const progress = new CallProgress(t.deps);
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
    const progress = new CallProgress(t.deps);
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
});
