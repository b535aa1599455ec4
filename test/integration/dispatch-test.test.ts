import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';
import { createProject, createTrunk, createWorkflow } from './testing/telephony.js';

type Json = { data: Record<string, unknown> };
type Errors = { message: string; errors: Record<string, string[]> };

describe.each(storeKinds())('POST /phone-numbers/{id}/dispatch-test on $name', (kind) => {
  let t: TestApi;
  let numberId: string;
  let office: string;
  let night: string;
  let vip: string;
  let fallback: string;
  const test = (body: unknown) => t.call('POST', `/api/v1/phone-numbers/${numberId}/dispatch-test`, { body });

  beforeAll(async () => {
    // Monday 2026-11-02 10:00 UTC = 05:00 in New York (EST).
    t = await startTestApi(kind);
    const trunk = (await createTrunk(t)).id as string;
    const project = await createProject(t);
    [office, night, vip, fallback] = [
      await createWorkflow(t, project),
      await createWorkflow(t, project),
      await createWorkflow(t, project),
      await createWorkflow(t, project),
    ];
    const res = await t.call('POST', '/api/v1/phone-numbers', {
      body: {
        number: '+14155550100',
        sip_trunk_id: trunk,
        project_id: project,
        dispatch_rules: [
          { workflow_id: fallback, priority: 1000, variables: { route: 'fallback' } },
          {
            workflow_id: office,
            time_window: {
              days: ['mon', 'tue', 'wed', 'thu', 'fri'],
              start: '09:00',
              end: '17:00',
              timezone: 'America/New_York',
            },
            caller_id: { block: ['anonymous'] },
            variables: { route: 'office' },
          },
          {
            workflow_id: night,
            time_window: { days: ['fri'], start: '22:00', end: '06:00', timezone: 'America/New_York' },
          },
          { workflow_id: vip, priority: 10, caller_id: { allow: ['+4930'], block: ['+493099'] } },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    numberId = (res.data as Json).data.id as string;
  });
  afterAll(() => t.close());

  it('reports the winner and why every other rule lost, in evaluation order', async () => {
    const res = await test({ caller: '+12025550143', at: '2026-11-02T15:00:00Z' });
    expect(res.statusCode).toBe(200);
    expect(res.data).toEqual({
      data: {
        caller: '+12025550143',
        at: '2026-11-02T15:00:00Z',
        winner: { index: 1, workflow_id: office, priority: 100, variables: { route: 'office' } },
        rules: [
          {
            index: 3,
            workflow_id: vip,
            priority: 10,
            matched: false,
            failed_filter: 'caller_id',
            reason: 'caller +12025550143 is not in the allow list',
          },
          { index: 1, workflow_id: office, priority: 100, matched: true, failed_filter: null, reason: null },
          {
            index: 2,
            workflow_id: night,
            priority: 100,
            matched: false,
            failed_filter: 'time_window',
            reason: 'mon 10:00 America/New_York is outside fri 22:00-06:00',
          },
          {
            index: 0,
            workflow_id: fallback,
            priority: 1000,
            matched: true,
            failed_filter: null,
            reason: null,
          },
        ],
      },
    });
  });

  it('follows priority, caller prefixes with block winning, and anonymous callers', async () => {
    const winner = async (body: unknown) => {
      const res = await test(body);
      expect(res.statusCode, res.body).toBe(200);
      return ((res.data as Json).data.winner as { workflow_id: string } | null)?.workflow_id;
    };
    expect(await winner({ caller: '+4930123456', at: '2026-11-02T15:00:00Z' })).toBe(vip);
    expect(await winner({ caller: '+493099123', at: '2026-11-02T15:00:00Z' })).toBe(office);
    expect(await winner({ caller: 'anonymous', at: '2026-11-02T15:00:00Z' })).toBe(fallback);
    // Friday 23:30 and Saturday 05:59 in New York belong to Friday's night window; 06:00 does not.
    expect(await winner({ caller: '+12025550143', at: '2026-11-07T04:30:00Z' })).toBe(night);
    expect(await winner({ caller: '+12025550143', at: '2026-11-07T10:59:00Z' })).toBe(night);
    expect(await winner({ caller: '+12025550143', at: '2026-11-07T11:00:00Z' })).toBe(fallback);
    // The same UTC instant is inside office hours after the DST change and outside before it.
    expect(await winner({ caller: '+12025550143', at: '2026-10-30T13:30:00Z' })).toBe(office);
    expect(await winner({ caller: '+12025550143', at: '2026-11-06T13:30:00Z' })).toBe(fallback);
    // An offset timestamp names the same instant.
    expect(await winner({ caller: '+12025550143', at: '2026-11-02T10:00:00-05:00' })).toBe(office);
  });

  it('defaults `at` to the clock and normalizes the caller', async () => {
    t.clock.advance(90_500);
    const now = new Date(t.clock.now()).toISOString().slice(0, 19) + 'Z';
    const res = await test({ caller: '+1 202 555 0143' });
    expect(res.statusCode).toBe(200);
    expect((res.data as Json).data).toMatchObject({ caller: '+12025550143', at: now });
  });

  it('answers no winner when no rule matches, and for a number without rules', async () => {
    const res = await t.call('PATCH', `/api/v1/phone-numbers/${numberId}`, {
      body: { dispatch_rules: [{ workflow_id: vip, caller_id: { allow: ['+49'] } }] },
    });
    expect(res.statusCode).toBe(200);
    const none = await test({ caller: 'anonymous', at: '2026-11-02T15:00:00Z' });
    expect((none.data as Json).data).toMatchObject({
      winner: null,
      rules: [
        {
          index: 0,
          matched: false,
          failed_filter: 'caller_id',
          reason: 'an anonymous caller is not in the allow list',
        },
      ],
    });
    await t.call('PATCH', `/api/v1/phone-numbers/${numberId}`, { body: { dispatch_rules: [] } });
    const empty = await test({ caller: 'anonymous' });
    expect((empty.data as Json).data).toMatchObject({ winner: null, rules: [] });
  });

  it('answers 422 for a bad caller or timestamp, 400 without a body', async () => {
    const bad = await test({ caller: '12345', at: 'yesterday' });
    expect(bad.statusCode).toBe(422);
    expect((bad.data as Errors).errors).toEqual({
      caller: ['must be an E.164 number (+ and digits) or anonymous'],
      at: ['must be an ISO 8601 timestamp with Z or an offset'],
    });
    for (const at of ['2026-11-02', '2026-11-02T10:00:00', '2026-13-02T10:00:00Z']) {
      const res = await test({ caller: 'anonymous', at });
      expect(res.statusCode, at).toBe(422);
      expect(Object.keys((res.data as Errors).errors)).toEqual(['at']);
    }
    const missing = await test({});
    expect((missing.data as Errors).errors).toEqual({ caller: ['is required'] });
    const none = await t.call('POST', `/api/v1/phone-numbers/${numberId}/dispatch-test`);
    expect(none.statusCode).toBe(400);
  });
});
