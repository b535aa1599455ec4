// Fixtures for the call controller suites (src/telephony/calls, src/modules/calls): a workspace with a project, a
// published workflow, a trunk and a number, an INVITE builder, and readers for the call rows and
// the call events in the outbox. The e2e suites' node and world are in call-node.ts, their store
// reads in test/e2e/testing/call-reads.ts, sipp in sipp.ts.
import type { CallTable } from '../../src/store/schema.js';
import type { InboundInvite } from '../../src/modules/calls/inbound-admission.js';
import type { TestApi } from './api.js';
import { createProject, createPublishedWorkflow, registerNumber } from './fixtures.js';

export interface CallWorld {
  projectId: string;
  workflowId: string;
  numberId: string;
  trunkId: string;
  number: string;
  host: string;
}

export async function callWorld(t: TestApi, number = '+14155550100', rules?: unknown[]): Promise<CallWorld> {
  const projectId = await createProject(t);
  const workflowId = await createPublishedWorkflow(t, projectId);
  const { trunkId, numberId } = await registerNumber(
    t,
    t.workspaceId,
    projectId,
    number,
    rules ?? [{ workflow_id: workflowId, priority: 100, variables: { greeting: 'hi' } }],
  );
  const ws = await t.store.db
    .selectFrom('workspaces')
    .select('sip_label')
    .where('id', '=', t.workspaceId)
    .executeTakeFirstOrThrow();
  return {
    projectId,
    workflowId,
    numberId,
    trunkId,
    number,
    host: `${ws.sip_label}.${t.deps.config.sip.domain}`,
  };
}

export function invite(w: CallWorld, overrides: Partial<InboundInvite> = {}): InboundInvite {
  return {
    requestUriHost: w.host,
    requestUriUser: w.number,
    toUser: w.number,
    fromUser: '+4930123456',
    fromHost: 'carrier.example.test',
    privacy: null,
    sourceIp: '203.0.113.10',
    sipCallId: `c-${Math.random().toString(36).slice(2)}@carrier`,
    ...overrides,
  };
}

export async function callRow(t: TestApi, id: string): Promise<CallTable> {
  return asCallTable(
    await t.store.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  );
}

/**
 * A selected call row as CallTable types it: without the store-kept api_json (migration 005,
 * which `select *` returns too), so a test may insert a copy of it.
 */
export function asCallTable(row: CallTable): CallTable {
  const { api_json: _rendered, ...call } = row as CallTable & { api_json?: string };
  return call;
}

/** The call events of one call in the outbox, oldest first, as their parsed bodies. */
export async function callEvents(
  t: TestApi,
  callId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await t.store.db
    .selectFrom('webhook_events')
    .select(['type', 'body', 'created_at'])
    .where('workspace_id', '=', t.workspaceId)
    .where('type', 'in', ['call.started', 'call.ended'])
    .orderBy('created_at')
    .execute();
  return rows
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.data.id === callId)
    .map((e) => ({ type: e.type, data: e.data }));
}
