import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowAttachedNumbers } from '../../src/modules/phone-numbers/phone-numbers.repo.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';
import { createProject, createTrunk, createWorkflow, keyWithScopes } from './testing/telephony.js';

type Json = { data: Record<string, unknown> };
type Errors = { message: string; errors: Record<string, string[]> };

describe.each(storeKinds())('phone numbers on $name', (kind) => {
  let t: TestApi;
  let trunkId: string;
  let projectId: string;
  let workflowId: string;
  let seq = 0;
  /** A fresh valid US number per call, so tests do not collide on the unique number. */
  const nextNumber = () => `+1415555${String(1000 + seq++).padStart(4, '0')}`;
  const create = async (body: Record<string, unknown> = {}, key?: string) =>
    t.call('POST', '/api/v1/phone-numbers', {
      key,
      body: { number: nextNumber(), sip_trunk_id: trunkId, project_id: projectId, ...body },
    });

  beforeAll(async () => {
    t = await startTestApi(kind);
    trunkId = (await createTrunk(t)).id as string;
    projectId = await createProject(t);
    workflowId = await createWorkflow(t, projectId);
  });
  afterAll(() => t.close());

  it('registers a number in E.164, reads, relabels and deletes it', async () => {
    const res = await t.call('POST', '/api/v1/phone-numbers', {
      body: { number: '+1 (202) 555-0143', sip_trunk_id: trunkId, project_id: projectId, label: 'Main line' },
    });
    expect(res.statusCode).toBe(201);
    const n = (res.data as Json).data;
    expect(n).toEqual({
      id: expect.any(String),
      number: '+12025550143',
      sip_trunk_id: trunkId,
      project_id: projectId,
      label: 'Main line',
      dispatch_rules: [],
      created_at: '2026-11-02T10:00:00Z',
      updated_at: '2026-11-02T10:00:00Z',
    });
    const got = await t.call('GET', `/api/v1/phone-numbers/${n.id}`);
    expect(got.data).toEqual({ data: n });

    const otherProject = await createProject(t);
    const patched = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, {
      body: { label: null, project_id: otherProject },
    });
    expect(patched.statusCode).toBe(200);
    expect((patched.data as Json).data).toMatchObject({
      label: null,
      project_id: otherProject,
      number: '+12025550143',
    });

    const del = await t.call('DELETE', `/api/v1/phone-numbers/${n.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await t.call('GET', `/api/v1/phone-numbers/${n.id}`)).statusCode).toBe(404);
    expect((await t.call('DELETE', `/api/v1/phone-numbers/${n.id}`)).statusCode).toBe(404);
    // The number is free again once deleted.
    const again = await t.call('POST', '/api/v1/phone-numbers', {
      body: { number: '+12025550143', sip_trunk_id: trunkId, project_id: projectId },
    });
    expect(again.statusCode).toBe(201);
  });

  it('lists newest first, filtered by project_id', async () => {
    const ws = await t.newWorkspace('numbers list');
    const trunk = (await createTrunk(t, {}, ws.key)).id as string;
    const p1 = await createProject(t, ws.key);
    const p2 = await createProject(t, ws.key);
    const ids: string[] = [];
    for (const p of [p1, p2, p1]) {
      const res = await t.call('POST', '/api/v1/phone-numbers', {
        key: ws.key,
        body: { number: nextNumber(), sip_trunk_id: trunk, project_id: p },
      });
      ids.push((res.data as Json).data.id as string);
      t.clock.advance(1000);
    }
    const all = await t.call('GET', '/api/v1/phone-numbers', { key: ws.key });
    expect((all.data as { data: { id: string }[] }).data.map((x) => x.id)).toEqual([ids[2], ids[1], ids[0]]);
    const filtered = await t.call('GET', `/api/v1/phone-numbers?project_id=${p1}&per_page=1`, {
      key: ws.key,
    });
    const body = filtered.data as {
      data: { id: string }[];
      meta: { total: number };
      links: { next: string };
    };
    expect(body.data.map((x) => x.id)).toEqual([ids[2]]);
    expect(body.meta.total).toBe(2);
    expect(body.links.next).toBe(
      `http://localhost:8080/api/v1/phone-numbers?page=2&project_id=${p1}&per_page=1`,
    );
    const foreign = await t.call('GET', `/api/v1/phone-numbers?project_id=${p1}`);
    expect((foreign.data as { meta: { total: number } }).meta.total).toBe(0);
  });

  it('answers 422 on number, trunk and project, all at once', async () => {
    const other = await t.newWorkspace('numbers foreign refs');
    const theirTrunk = (await createTrunk(t, {}, other.key)).id as string;
    const theirProject = await createProject(t, other.key);
    const res = await t.call('POST', '/api/v1/phone-numbers', {
      body: { number: '+1555', sip_trunk_id: theirTrunk, project_id: theirProject },
    });
    expect(res.statusCode).toBe(422);
    expect((res.data as Errors).errors).toEqual({
      number: ['must be a valid E.164 phone number, e.g. +14155550123'],
      sip_trunk_id: ['does not name a SIP trunk of this workspace'],
      project_id: ['does not name a project of this workspace'],
    });
    for (const number of ['14155550100', '+1 555 010 0000', 'call me', '+4930']) {
      const bad = await create({ number });
      expect(bad.statusCode, number).toBe(422);
      expect(Object.keys((bad.data as Errors).errors)).toEqual(['number']);
    }
    const missing = await t.call('POST', '/api/v1/phone-numbers', { body: { label: 'x' } });
    expect((missing.data as Errors).errors).toMatchObject({
      number: ['is required'],
      sip_trunk_id: ['is required'],
      project_id: ['is required'],
    });
    const n = (await create()).data as Json;
    const badPatch = await t.call('PATCH', `/api/v1/phone-numbers/${n.data.id}`, {
      body: { project_id: theirProject },
    });
    expect(badPatch.statusCode).toBe(422);
    expect((badPatch.data as Errors).errors).toEqual({
      project_id: ['does not name a project of this workspace'],
    });
    const numberPatch = await t.call('PATCH', `/api/v1/phone-numbers/${n.data.id}`, {
      body: { number: '+1' },
    });
    expect((numberPatch.data as Errors).errors).toEqual({ number: ['is not a known field'] });
  });

  it('answers 422 for a number already registered in the workspace, not across workspaces', async () => {
    const first = await create({ number: '+491701234567' });
    expect(first.statusCode).toBe(201);
    const dup = await create({ number: '+49 170 1234567' });
    expect(dup.statusCode).toBe(422);
    expect((dup.data as Errors).errors).toEqual({ number: ['is already registered in this workspace'] });

    const other = await t.newWorkspace('same number elsewhere');
    const res = await t.call('POST', '/api/v1/phone-numbers', {
      key: other.key,
      body: {
        number: '+491701234567',
        sip_trunk_id: (await createTrunk(t, {}, other.key)).id,
        project_id: await createProject(t, other.key),
      },
    });
    expect(res.statusCode).toBe(201);
  });

  it('lets exactly one of two racing registrations of a number win', async () => {
    const number = nextNumber();
    const results = await Promise.all([create({ number }), create({ number })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 422]);
    const loser = results.find((r) => r.statusCode === 422)!;
    expect((loser.data as Errors).errors).toEqual({ number: ['is already registered in this workspace'] });
  });

  it('stores dispatch rules as given, defaulting priority and variables', async () => {
    const n = ((await create()).data as Json).data;
    const rules = [
      {
        workflow_id: workflowId,
        priority: 50,
        time_window: { days: ['mon', 'tue'], start: '22:00', end: '06:00', timezone: 'Europe/Berlin' },
        caller_id: { allow: ['+49', 'anonymous'], block: ['+4930123456'] },
        variables: { tier: 'gold', retries: 2 },
      },
      { workflow_id: workflowId },
      { workflow_id: workflowId, priority: 10, caller_id: { block: ['anonymous'] } },
    ];
    const res = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, { body: { dispatch_rules: rules } });
    expect(res.statusCode, res.body).toBe(200);
    const expected = [
      rules[0],
      { ...rules[1], priority: 100, variables: {} },
      { ...rules[2], variables: {} },
    ];
    expect((res.data as Json).data.dispatch_rules).toEqual(expected);
    const got = await t.call('GET', `/api/v1/phone-numbers/${n.id}`);
    expect((got.data as Json).data.dispatch_rules).toEqual(expected);

    const cleared = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, { body: { dispatch_rules: [] } });
    expect((cleared.data as Json).data.dispatch_rules).toEqual([]);

    const onCreate = await create({ dispatch_rules: [{ workflow_id: workflowId, priority: 1 }] });
    expect(onCreate.statusCode).toBe(201);
    expect((onCreate.data as Json).data.dispatch_rules).toEqual([
      { workflow_id: workflowId, priority: 1, variables: {} },
    ]);
  });

  it('answers 422 keyed by the path of every bad rule field', async () => {
    const n = ((await create()).data as Json).data;
    const other = await t.newWorkspace('rules foreign workflow');
    const theirWorkflow = await createWorkflow(t, await createProject(t, other.key), other.key);
    const window = { days: ['mon'], start: '09:00', end: '17:00', timezone: 'UTC' };
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { 'dispatch_rules.0.workflow_id': ['is required'] }],
      [
        { workflow_id: theirWorkflow },
        { 'dispatch_rules.0.workflow_id': ['does not name a workflow of this workspace'] },
      ],
      [
        { workflow_id: 'nope' },
        { 'dispatch_rules.0.workflow_id': ['does not name a workflow of this workspace'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, start: '9:00' } },
        { 'dispatch_rules.0.time_window.start': ['must be a 24-hour time HH:MM'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, end: '24:00' } },
        { 'dispatch_rules.0.time_window.end': ['must be a 24-hour time HH:MM'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, days: [] } },
        { 'dispatch_rules.0.time_window.days': ['must list at least one day'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, days: ['mon', 'tue', 'mon'] } },
        { 'dispatch_rules.0.time_window.days': ['lists mon more than once'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, days: ['monday'] } },
        { 'dispatch_rules.0.time_window.days.0': ['must be one of: mon, tue, wed, thu, fri, sat, sun'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, timezone: 'Mars/Olympus' } },
        { 'dispatch_rules.0.time_window.timezone': ['must be an IANA time zone name, e.g. Europe/Berlin'] },
      ],
      [
        { workflow_id: workflowId, time_window: { ...window, timezone: '+05:00' } },
        { 'dispatch_rules.0.time_window.timezone': ['must be an IANA time zone name, e.g. Europe/Berlin'] },
      ],
      [
        { workflow_id: workflowId, time_window: { days: ['mon'], start: '09:00', end: '17:00' } },
        { 'dispatch_rules.0.time_window.timezone': ['is required'] },
      ],
      [
        { workflow_id: workflowId, caller_id: {} },
        { 'dispatch_rules.0.caller_id': ['must have allow or block'] },
      ],
      [
        { workflow_id: workflowId, caller_id: { allow: [] } },
        { 'dispatch_rules.0.caller_id.allow': ['must not be empty; leave it out instead'] },
      ],
      [
        { workflow_id: workflowId, caller_id: { allow: ['+1', '4930'], block: ['Anonymous'] } },
        {
          'dispatch_rules.0.caller_id.allow.1': [
            'must be an E.164 number, a + prefix of digits, or anonymous',
          ],
          'dispatch_rules.0.caller_id.block.0': [
            'must be an E.164 number, a + prefix of digits, or anonymous',
          ],
        },
      ],
      [{ workflow_id: workflowId, variables: ['a'] }, { 'dispatch_rules.0.variables': ['must be object'] }],
      [{ workflow_id: workflowId, priority: 'high' }, { 'dispatch_rules.0.priority': ['must be number'] }],
      [{ workflow_id: workflowId, weight: 1 }, { 'dispatch_rules.0.weight': ['is not a known field'] }],
    ];
    for (const [rule, errors] of cases) {
      const res = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, {
        body: { dispatch_rules: [rule] },
      });
      expect(res.statusCode, JSON.stringify(rule)).toBe(422);
      expect((res.data as Errors).errors, JSON.stringify(rule)).toEqual(errors);
    }
    const second = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, {
      body: {
        dispatch_rules: [
          { workflow_id: workflowId },
          { workflow_id: workflowId, time_window: { ...window, start: '25:00' } },
        ],
      },
    });
    expect((second.data as Errors).errors).toEqual({
      'dispatch_rules.1.time_window.start': ['must be a 24-hour time HH:MM'],
    });

    const tooMany = Array.from({ length: 51 }, () => ({ workflow_id: workflowId }));
    const many = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, {
      body: { dispatch_rules: tooMany },
    });
    expect((many.data as Errors).errors).toEqual({ dispatch_rules: ['may hold at most 50 rules'] });
    const fifty = await t.call('PATCH', `/api/v1/phone-numbers/${n.id}`, {
      body: { dispatch_rules: tooMany.slice(1) },
    });
    expect(fifty.statusCode).toBe(200);

    // Nothing half-written: the failed updates left the 50 rules alone.
    const got = await t.call('GET', `/api/v1/phone-numbers/${n.id}`);
    expect(((got.data as Json).data.dispatch_rules as unknown[]).length).toBe(50);
  });

  it('answers 401 without a key and 403 on writes for a key without telephony', async () => {
    const n = ((await create()).data as Json).data;
    expect((await t.call('GET', '/api/v1/phone-numbers', { key: null })).statusCode).toBe(401);
    expect((await t.call('GET', `/api/v1/phone-numbers/${n.id}`, { key: null })).statusCode).toBe(401);
    expect(
      (
        await t.call('POST', `/api/v1/phone-numbers/${n.id}/dispatch-test`, {
          key: null,
          body: { caller: 'anonymous' },
        })
      ).statusCode,
    ).toBe(401);
    const key = await keyWithScopes(t, ['read', 'write']);
    expect((await t.call('GET', '/api/v1/phone-numbers', { key })).statusCode).toBe(200);
    expect((await t.call('GET', `/api/v1/phone-numbers/${n.id}`, { key })).statusCode).toBe(200);
    const test = await t.call('POST', `/api/v1/phone-numbers/${n.id}/dispatch-test`, {
      key,
      body: { caller: 'anonymous' },
    });
    expect(test.statusCode).toBe(200);
    for (const [method, url, body] of [
      [
        'POST',
        '/api/v1/phone-numbers',
        { number: nextNumber(), sip_trunk_id: trunkId, project_id: projectId },
      ],
      ['PATCH', `/api/v1/phone-numbers/${n.id}`, { label: 'x' }],
      ['DELETE', `/api/v1/phone-numbers/${n.id}`, undefined],
    ] as const) {
      const res = await t.call(method, url, { key, body });
      expect(res.statusCode, method).toBe(403);
      expect(res.data).toEqual({ message: 'This action needs an API key with the "telephony" scope.' });
    }
    const telephonyOnly = await keyWithScopes(t, ['telephony']);
    expect((await t.call('GET', '/api/v1/phone-numbers', { key: telephonyOnly })).statusCode).toBe(403);
  });

  it('hides numbers of other workspaces behind 404 on every verb', async () => {
    const other = await t.newWorkspace('numbers foreign');
    const theirs = await t.call('POST', '/api/v1/phone-numbers', {
      key: other.key,
      body: {
        number: nextNumber(),
        sip_trunk_id: (await createTrunk(t, {}, other.key)).id,
        project_id: await createProject(t, other.key),
      },
    });
    const id = (theirs.data as Json).data.id as string;
    for (const [method, url, body] of [
      ['GET', `/api/v1/phone-numbers/${id}`, undefined],
      ['PATCH', `/api/v1/phone-numbers/${id}`, { label: 'mine' }],
      ['DELETE', `/api/v1/phone-numbers/${id}`, undefined],
      ['POST', `/api/v1/phone-numbers/${id}/dispatch-test`, { caller: 'anonymous' }],
    ] as const) {
      const res = await t.call(method, url, { body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.data).toEqual({ message: 'Phone number not found.' });
    }
    const list = await t.call('GET', '/api/v1/phone-numbers?per_page=100');
    expect((list.data as { data: { id: string }[] }).data.map((x) => x.id)).not.toContain(id);
    expect((await t.call('GET', `/api/v1/phone-numbers/${id}`, { key: other.key })).statusCode).toBe(200);
  });

  it('names the numbers whose rules use a workflow', async () => {
    const ws = await t.newWorkspace('attached');
    const trunk = (await createTrunk(t, {}, ws.key)).id as string;
    const p = await createProject(t, ws.key);
    const used = await createWorkflow(t, p, ws.key);
    const unused = await createWorkflow(t, p, ws.key);
    for (const [number, rules] of [
      ['+14155550990', [{ workflow_id: unused }, { workflow_id: used }]],
      ['+14155550980', [{ workflow_id: used, priority: 1 }]],
      ['+14155550970', [{ workflow_id: unused }]],
    ] as const) {
      const res = await t.call('POST', '/api/v1/phone-numbers', {
        key: ws.key,
        body: { number, sip_trunk_id: trunk, project_id: p, dispatch_rules: rules },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await workflowAttachedNumbers(t.store.db, ws.workspaceId, used)).toEqual([
      '+14155550980',
      '+14155550990',
    ]);
    expect(await workflowAttachedNumbers(t.store.db, ws.workspaceId, unused)).toEqual([
      '+14155550970',
      '+14155550990',
    ]);
    expect(await workflowAttachedNumbers(t.store.db, t.workspaceId, used)).toEqual([]);
  });
});
