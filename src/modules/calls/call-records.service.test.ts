import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { callEvents, callRow, callWorld, invite, type CallWorld } from '../../../test/support/calls.js';
import { storeKinds } from '../../../test/support/stores.js';
import { endCall } from './call-lifecycle.js';
import { inTransaction } from '../../store/database.js';
import { endingOf, type EndedBy } from './call-endings.js';
import { CallRecordsService } from './call-records.service.js';
import { admitInbound } from './inbound-admission.js';

describe('endingOf', () => {
  const table: [string, string, EndedBy, string, string][] = [
    ['in_progress', 'inbound', 'remote', 'completed', 'caller_hangup'],
    ['in_progress', 'outbound', 'remote', 'completed', 'callee_hangup'],
    ['in_progress', 'inbound', 'caller', 'completed', 'caller_hangup'],
    ['in_progress', 'outbound', 'callee', 'completed', 'callee_hangup'],
    ['in_progress', 'inbound', 'workflow', 'completed', 'workflow_hangup'],
    ['in_progress', 'outbound', 'transfer', 'completed', 'transferred'],
    ['in_progress', 'inbound', 'shutdown', 'completed', 'shutdown'],
    ['in_progress', 'inbound', 'media_timeout', 'completed', 'media_timeout'],
    ['in_progress', 'outbound', 'media_timeout', 'completed', 'media_timeout'],
    ['ringing', 'inbound', 'remote', 'cancelled', 'caller_cancelled'],
    ['ringing', 'inbound', 'caller', 'cancelled', 'caller_cancelled'],
    ['queued', 'outbound', 'shutdown', 'cancelled', 'shutdown'],
    ['ringing', 'inbound', 'workflow', 'cancelled', 'workflow_hangup'],
  ];
  it.each(table)('%s %s call ended by %s → %s / %s', (status, direction, by, s, r) => {
    expect(endingOf({ status, direction }, by)).toEqual({ status: s, reason: r });
  });
});

describe.each(storeKinds())('call progress on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let progress: CallRecordsService;
  const admit = async () => {
    const a = await admitInbound(t.deps, invite(w));
    if (a.kind !== 'accept') throw new Error(a.why);
    return a;
  };
  const session = (id: string) =>
    t.store.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const minutes = (callProject: string) =>
    t.store.db
      .selectFrom('usage_events')
      .selectAll()
      .where('metric', '=', 'voice_minutes')
      .where('project_id', '=', callProject)
      .execute();

  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t);
    progress = new CallRecordsService(t.deps);
  });
  afterAll(() => t.close());

  it('endCall with `from` leaves a call answered meanwhile alone (a late cancel is not a hang-up)', async () => {
    const a = await admit();
    await progress.answered(a.call.id);
    const cancel = await inTransaction(t.store.db, (trx) =>
      endCall(trx, t.deps, a.call.id, {
        status: 'cancelled',
        reason: 'caller_cancelled',
        from: ['queued', 'ringing'],
      }),
    );
    expect(cancel).toBeNull();
    expect(await callRow(t, a.call.id)).toMatchObject({ status: 'in_progress', hangup_reason: null });
    expect(await progress.ended(a.call.id, 'remote')).toMatchObject({ status: 'completed' });
  });

  it('answer, then the caller hangs up: in_progress with call.started, completed with caller_hangup, minutes metered', async () => {
    const a = await admit();
    t.clock.advance(2_000);
    const run = await progress.answered(a.call.id);
    expect(run?.session.status).toBe('active');
    expect(run?.call.status).toBe('in_progress');
    expect(await progress.answered(a.call.id)).toBeNull();
    t.clock.advance(90_000);
    const ended = await progress.ended(a.call.id, 'remote');
    expect(ended).toMatchObject({
      status: 'completed',
      hangup_reason: 'caller_hangup',
      duration_seconds: 90,
    });
    expect(await progress.ended(a.call.id, 'workflow')).toBeNull();

    const row = await callRow(t, a.call.id);
    expect(row.started_at).toBe('2026-11-02T10:00:02.000Z');
    expect(row.ended_at).toBe('2026-11-02T10:01:32.000Z');
    const events = await callEvents(t, a.call.id);
    expect(events.map((e) => [e.type, e.data.status, e.data.hangup_reason])).toEqual([
      ['call.started', 'in_progress', null],
      ['call.ended', 'completed', 'caller_hangup'],
    ]);
    expect(events[1]!.data.duration_seconds).toBe(90);
    expect(await session(a.session.id)).toMatchObject({ status: 'ended', end_reason: 'caller_hangup' });
    const sessionEnded = await t.store.db
      .selectFrom('webhook_events')
      .select('body')
      .where('type', '=', 'session.ended')
      .execute();
    expect(sessionEnded.some((e) => e.body.includes(a.session.id))).toBe(true);
    const used = await minutes(w.projectId);
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ quantity: 1.5, provider: 'generic' });
  });

  it('a hangup node and a transfer end the call completed with their reasons and the session likewise', async () => {
    for (const [by, reason, sessionReason] of [
      ['workflow', 'workflow_hangup', 'completed'],
      ['transfer', 'transferred', 'transferred'],
    ] as const) {
      const a = await admit();
      await progress.answered(a.call.id);
      t.clock.advance(30_000);
      expect(await progress.ended(a.call.id, by)).toMatchObject({
        status: 'completed',
        hangup_reason: reason,
      });
      expect(await session(a.session.id)).toMatchObject({ end_reason: sessionReason });
    }
  });

  it('a caller who gives up before the answer cancels the call: no call.started, no minutes', async () => {
    const before = (await minutes(w.projectId)).length;
    const a = await admit();
    t.clock.advance(5_000);
    expect(await progress.ended(a.call.id, 'caller')).toMatchObject({
      status: 'cancelled',
      hangup_reason: 'caller_cancelled',
      duration_seconds: 0,
      started_at: null,
    });
    expect((await callEvents(t, a.call.id)).map((e) => e.type)).toEqual(['call.ended']);
    expect(await session(a.session.id)).toMatchObject({ status: 'ended', end_reason: 'caller_hangup' });
    expect(await progress.answered(a.call.id)).toBeNull();
    expect((await minutes(w.projectId)).length).toBe(before);
  });

  it('ignores calls it does not know', async () => {
    expect(await progress.answered('0190f1c2-0000-7000-8000-000000000000')).toBeNull();
    expect(await progress.ended('0190f1c2-0000-7000-8000-000000000000', 'remote')).toBeNull();
  });
});
