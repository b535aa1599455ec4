// The calls list rendered by the store must be the very bytes the object path would write: rows →
// toCall → the Paginated(Call) schema's serializer. Held here over awkward data, several pages,
// filters, and calls changed after they were written.
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../test/support/api.js';
import { storeKinds } from '../../../test/support/stores.js';
import { renderPage } from '../../shared/paging.js';
import { Paginated } from '../../shared/schemas.js';
import { newId } from '../../shared/ids.js';
import type { CallTable } from '../../store/schema.js';
import { toCall } from './call-lifecycle.js';
import { listCallsJson, type CallFilter } from './calls.repo.js';
import { Call } from './calls.schema.js';

const serialize = fastJson(JSON.parse(JSON.stringify(Paginated(Call))) as object);

/** The reference: the page as rows, newest first, through toCall and the schema serializer. */
async function expectedPage(
  t: TestApi,
  workspaceId: string,
  params: { page: number; perPage: number },
  query: Record<string, unknown>,
  where: (qb: ReturnType<typeof callsOf>) => ReturnType<typeof callsOf> = (qb) => qb,
): Promise<string> {
  const all = await where(callsOf(t, workspaceId))
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const rows = all.slice((params.page - 1) * params.perPage, params.page * params.perPage);
  return serialize(
    renderPage(rows.map(toCall), all.length, params, { path: 'http://localhost:8080/api/v1/calls', query }),
  );
}

function callsOf(t: TestApi, workspaceId: string) {
  return t.store.db.selectFrom('calls').where('workspace_id', '=', workspaceId);
}

function call(workspaceId: string, i: number, over: Partial<CallTable> = {}): CallTable {
  const at = new Date(Date.UTC(2026, 10, 2, 10, 0, 0) + i * 1000).toISOString();
  return {
    id: newId(),
    workspace_id: workspaceId,
    project_id: newId(),
    workflow_id: i % 2 ? newId() : null,
    workflow_version: i % 2 ? i : null,
    session_id: i % 3 ? null : newId(),
    phone_number_id: null,
    direction: i % 2 ? 'inbound' : 'outbound',
    status: 'completed',
    from_number: '+14155550100',
    to_number: `+1415555${String(1000 + i)}`,
    duration_seconds: i % 4 ? i * 7 : null,
    hangup_reason: i % 5 ? 'callee_hangup' : null,
    metadata: '{}',
    variables: '{"v":1}',
    sip_call_id: null,
    started_at: i % 2 ? at : null,
    ended_at: i % 3 ? at : null,
    created_at: at,
    updated_at: at,
    node_id: null,
    ...over,
  };
}

const AWKWARD_METADATA = [
  JSON.stringify({ crm: 'abc', n: 42, ok: true }),
  JSON.stringify({ '2': true, b: 1.5, '1': 'first', big: 2 ** 70, e: 1e21, small: 1e-7 }),
  JSON.stringify({ q: 'say "hi"\\ \n\t\r\b\f \u0001\u001f \u007f', u: 'é 😀 \u2028 </script>' }),
  JSON.stringify({ neg: -0.25, zero: 0, empty: '' }),
  '',
];

// The call some rows were dialled from (dial legs).
const PARENT = newId();

describe.each(storeKinds())('calls list rendering on $name', (kind) => {
  let t: TestApi;
  let workspaceId: string;
  beforeAll(async () => {
    t = await startTestApi(kind);
    workspaceId = t.workspaceId;
    const rows = Array.from({ length: 23 }, (_, i) =>
      call(workspaceId, i, {
        metadata: AWKWARD_METADATA[i % AWKWARD_METADATA.length]!,
        ...(i % 3 === 1 ? { parent_call_id: PARENT } : {}),
      }),
    );
    // Timestamps of other lengths than the stored form (apiTime keeps short ones as they are).
    rows.push(call(workspaceId, 30, { created_at: '2026-11-02T10:05:00Z', started_at: '2026-11-02' }));
    rows.push(call(workspaceId, 31, { created_at: '2026-11-02T10:06:00.5Z' }));
    await t.store.db.insertInto('calls').values(rows).execute();
    // Another workspace's calls never show.
    await t.store.db.insertInto('calls').values(call(newId(), 40)).execute();
  });
  afterAll(() => t.close());

  it('answers with the bytes the schema serializer writes, on every page', async () => {
    for (const [page, perPage] of [
      [1, 25],
      [1, 10],
      [2, 10],
      [3, 10],
      [4, 10],
      [1, 100],
    ] as const) {
      const url = `/api/v1/calls?page=${page}&per_page=${perPage}`;
      const res = await t.call('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const expected = await expectedPage(t, workspaceId, { page, perPage }, { page, per_page: perPage });
      expect(res.body, url).toBe(expected);
    }
  });

  it('keeps each call’s rendering current when the call changes', async () => {
    const [first, second] = await callsOf(t, workspaceId)
      .select('id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    await t.store.db
      .updateTable('calls')
      .set({ status: 'in_progress', started_at: '2026-11-03T08:00:00.250Z', metadata: '{"moved":"yes"}' })
      .where('id', '=', first!.id)
      .execute();
    await t.store.db
      .updateTable('calls')
      .set({ status: 'failed', hangup_reason: 'carrier_error', duration_seconds: 0, metadata: '' })
      .where('id', '=', second!.id)
      .execute();
    const res = await t.call('GET', '/api/v1/calls?per_page=100');
    expect(res.body).toBe(await expectedPage(t, workspaceId, { page: 1, perPage: 100 }, { per_page: 100 }));
    expect(res.body).toContain('"status":"in_progress","from"');
    expect(res.body).toContain('"metadata":{"moved":"yes"}');
  });

  it('renders filtered pages byte for byte too, with their own totals', async () => {
    const cases: Array<[string, CallFilter, (qb: ReturnType<typeof callsOf>) => ReturnType<typeof callsOf>]> =
      [
        ['direction=inbound', { direction: 'inbound' }, (qb) => qb.where('direction', '=', 'inbound')],
        ['status=completed', { status: 'completed' }, (qb) => qb.where('status', '=', 'completed')],
        ['to=%2B14155551003', { to: '+14155551003' }, (qb) => qb.where('to_number', '=', '+14155551003')],
        [
          'from=%2B19995550000',
          { from: '+19995550000' },
          (qb) => qb.where('from_number', '=', '+19995550000'),
        ],
        [
          `parent_call_id=${PARENT}`,
          { parent_call_id: PARENT },
          (qb) => qb.where('parent_call_id', '=', PARENT),
        ],
      ];
    for (const [query, filter, where] of cases) {
      const params = Object.fromEntries(new URLSearchParams(query));
      const res = await t.call('GET', `/api/v1/calls?${query}&per_page=5&page=2`);
      expect(res.body, query).toBe(
        await expectedPage(
          t,
          workspaceId,
          { page: 2, perPage: 5 },
          { ...params, per_page: 5, page: 2 },
          where,
        ),
      );
      const all = await where(callsOf(t, workspaceId)).select('id').execute();
      expect((await listCallsJson(t.store.db, workspaceId, filter, { page: 1, perPage: 100 })).total).toBe(
        all.length,
      );
    }
    const none = await listCallsJson(
      t.store.db,
      workspaceId,
      { from: '+19995550000' },
      { page: 1, perPage: 25 },
    );
    expect(none).toEqual({ itemsJson: '', count: 0, total: 0 });
  });

  it('reads an unfiltered page past the end with the workspace total', async () => {
    const past = await listCallsJson(t.store.db, workspaceId, {}, { page: 9, perPage: 25 });
    expect(past).toEqual({ itemsJson: '', count: 0, total: 25 });
  });
});
