// Outbound calls end to end: POST /calls on the API of a service running the TelephonyNode, the
// INVITE through the `from` number's trunk to sipp playing the carrier's UAS. Answered (the
// workflow runs over RTP, the callee hangs up), busy, not answered within the ring timeout
// (CANCEL), a 401 challenge whose digest sipp verifies with the trunk's password, and 404. Each
// test asserts what sipp saw (its exit status: every expected message arrived) and what the
// service recorded (status, hangup_reason, times, events). Under CI a missing sipp fails.
import { afterEach, describe, expect, it } from 'vitest';
import { recordUsage } from '../../src/modules/usage/usage.service.js';
import type { CallTable } from '../../src/store/schema.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
import { storeKinds, type StoreKind } from '../support/stores.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const FROM = '+14155550160';
const TO = '+15551230000';
const PASSWORD = 'sipp-secret-1';

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const TALK = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Hello, this is a call from the service.' } },
    {
      id: 'ask',
      type: 'dtmf',
      config: { prompt: 'Press any key.', num_digits: 1, timeout_seconds: 60, save_to_variable: 'key' },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ],
};

/** sipp as a UAS on a free port, the service with a trunk terminating there, and one workflow. */
async function carrier(
  file: string,
  vars: Record<string, string | number> = {},
  config: Record<string, string> = {},
  store?: StoreKind,
) {
  const n = await startCallNode({ config, ...(store ? { store } : {}) });
  nodes.push(n);
  const port = await freeUdpPort();
  const scenario = scenarioFile(file, vars);
  const peer = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
  peers.push(peer);
  const world = await telephonyWorld(n, {
    number: FROM,
    termination: `sip:127.0.0.1:${port}`,
    password: PASSWORD,
    graphs: { talk: TALK },
  });
  return { n, peer, world };
}

async function dial(n: CallNode, world: { projectId: string; workflows: Record<string, string> }) {
  const res = await n.api('POST', '/calls', {
    project_id: world.projectId,
    workflow_id: world.workflows.talk,
    from: FROM,
    to: TO,
    variables: { purpose: 'e2e' },
    metadata: { crm_id: 'abc-1', attempt: 2 },
  });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  expect(res.data.data.status).toBe('queued');
  return res.data.data.id as string;
}

async function finalCall(n: CallNode, id: string): Promise<CallTable> {
  return eventually(async () => {
    const row = await callById(n, id);
    return row && !['queued', 'ringing', 'in_progress'].includes(row.status) ? row : undefined;
  });
}

async function callEventTypes(n: CallNode, id: string) {
  return (await storedEvents(n)).filter((e) => e.type.startsWith('call.') && e.data.id === id);
}

describe('e2e: outbound calls over real SIP (sipp UAS)', () => {
  for (const kind of storeKinds()) {
    peerTest(
      `answered (${kind.name}): in_progress with call.started, the workflow talks, the callee hangs up: completed`,
      async () => {
        const { n, peer, world } = await carrier('outbound-answer.xml', {}, {}, kind);
        const id = await dial(n, world);
        // Hold on to the call's media while it is live.
        const live = await eventually(async () => n.node.calls.find(id));
        const result = await peer.done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        const call = await finalCall(n, id);
        expect(call).toMatchObject({
          direction: 'outbound',
          status: 'completed',
          hangup_reason: 'callee_hangup',
          from_number: FROM,
          to_number: TO,
          workflow_version: 1,
        });
        expect(call.started_at).not.toBeNull();
        expect(call.ended_at).not.toBeNull();
        expect(call.duration_seconds).toBeGreaterThanOrEqual(1);
        const events = await callEventTypes(n, id);
        expect(events.map((e) => e.type)).toEqual(['call.started', 'call.ended']);
        expect(events[1]!.data).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup' });
        // The session ran on the phone channel with the POST /calls variables, and spoke.
        const session = await n.store.db
          .selectFrom('sessions')
          .selectAll()
          .where('id', '=', call.session_id!)
          .executeTakeFirstOrThrow();
        expect(session).toMatchObject({ channel: 'phone', status: 'ended', end_reason: 'caller_hangup' });
        expect(JSON.parse(session.variables)).toEqual({ purpose: 'e2e' });
        // The call's metadata went with it to the session and its session.ended webhook.
        expect(JSON.parse(session.metadata)).toEqual({ crm_id: 'abc-1', attempt: 2 });
        const ended = (await storedEvents(n)).find(
          (e) => e.type === 'session.ended' && e.data.id === session.id,
        );
        expect(ended?.data.metadata).toEqual({ crm_id: 'abc-1', attempt: 2 });
        expect(live.rtp.counters.rtpOut).toBeGreaterThan(20);
        const minutes = await n.store.db
          .selectFrom('usage_events')
          .select(['quantity', 'provider'])
          .where('metric', '=', 'voice_minutes')
          .execute();
        expect(minutes).toHaveLength(1);
        expect(minutes[0]!.quantity).toBeCloseTo(call.duration_seconds! / 60, 5);
        expect(minutes[0]!.provider).toBe('generic');
      },
      TIMEOUT,
    );
  }

  peerTest(
    '486 Busy Here: busy / busy, no workflow',
    async () => {
      const { n, peer, world } = await carrier('outbound-reject.xml', { STATUS: 486, REASON: 'Busy Here' });
      const id = await dial(n, world);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finalCall(n, id);
      expect(call).toMatchObject({
        status: 'busy',
        hangup_reason: 'busy',
        started_at: null,
        session_id: null,
      });
      expect((await callEventTypes(n, id)).map((e) => e.type)).toEqual(['call.ended']);
    },
    TIMEOUT,
  );

  peerTest(
    '404 Not Found: failed / invalid_number',
    async () => {
      const { n, peer, world } = await carrier('outbound-reject.xml', { STATUS: 404, REASON: 'Not Found' });
      const id = await dial(n, world);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finalCall(n, id);
      expect(call).toMatchObject({ status: 'failed', hangup_reason: 'invalid_number', session_id: null });
      const events = await callEventTypes(n, id);
      expect(events.map((e) => e.type)).toEqual(['call.ended']);
      expect(events[0]!.data).toMatchObject({ duration_seconds: 0, hangup_reason: 'invalid_number' });
    },
    TIMEOUT,
  );

  peerTest(
    'no answer within RING_TIMEOUT_SECONDS: CANCEL, 487 ACKed, no_answer / ring_timeout, no workflow',
    async () => {
      const { n, peer, world } = await carrier('outbound-no-answer.xml', {}, { RING_TIMEOUT_SECONDS: '1' });
      const id = await dial(n, world);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finalCall(n, id);
      expect(call).toMatchObject({ status: 'no_answer', hangup_reason: 'ring_timeout', session_id: null });
      expect((await callEventTypes(n, id)).map((e) => e.type)).toEqual(['call.ended']);
      const sessions = await n.store.db.selectFrom('sessions').select('id').execute();
      expect(sessions).toHaveLength(0);
    },
    TIMEOUT,
  );

  peerTest(
    '401 challenge: the digest sipp verifies with the trunk password is accepted, the call connects',
    async () => {
      const { n, peer, world } = await carrier('outbound-auth.xml', { USER: 'switchboard', PASSWORD });
      const id = await dial(n, world);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finalCall(n, id);
      // A digest sipp rejected would have drawn 403: failed / trunk_auth_failed.
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup' });
    },
    TIMEOUT,
  );

  peerTest(
    '401 challenge checked for real: when sipp expects another password it refuses (403) and the call fails trunk_auth_failed',
    async () => {
      const { n, peer, world } = await carrier('outbound-auth.xml', {
        USER: 'switchboard',
        PASSWORD: 'not-the-trunk-password',
      });
      const id = await dial(n, world);
      const result = await peer.done;
      // sipp's scenario fails on the invalid digest path.
      expect(result.code).not.toBe(0);
      const call = await finalCall(n, id);
      expect(call).toMatchObject({ status: 'failed', hangup_reason: 'trunk_auth_failed', started_at: null });
    },
    TIMEOUT,
  );

  it('voice minutes used up: POST /calls is 402 with errors.quota, no call is made', async () => {
    const n = await startCallNode();
    nodes.push(n);
    const world = await telephonyWorld(n, { number: FROM, graphs: { talk: TALK } });
    await n.store.db.updateTable('workspaces').set({ plan_voice_minutes: 1 }).execute();
    await recordUsage(n.store.db, {
      workspaceId: n.workspaceId,
      projectId: world.projectId,
      metric: 'voice_minutes',
      provider: 'generic',
      quantity: 1.5,
      at: Date.now(),
    });
    const res = await n.api('POST', '/calls', {
      project_id: world.projectId,
      workflow_id: world.workflows.talk,
      from: FROM,
      to: TO,
    });
    expect(res.status).toBe(402);
    expect(res.data.errors.quota[0]).toMatch(/voice minute/);
    expect(await n.store.db.selectFrom('calls').select('id').execute()).toHaveLength(0);
  });

  peerTest(
    'cancelled while ringing (CallsService.cancel, for DELETE /calls/{id}): CANCEL, 487 ACKed, cancelled / caller_cancelled',
    async () => {
      const { n, peer, world } = await carrier('outbound-no-answer.xml');
      const id = await dial(n, world);
      await eventually(async () => (await callById(n, id))?.status === 'ringing');
      const actor = { workspaceId: n.workspaceId, keyId: 'k', scopes: new Set<never>() };
      const cancelled = await n.services!.calls.cancel(actor, id);
      expect(cancelled).toMatchObject({ status: 'cancelled', hangup_reason: 'caller_cancelled' });
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      await expect(n.services!.calls.cancel(actor, id)).rejects.toMatchObject({ status: 409 });
      expect((await callEventTypes(n, id)).map((e) => e.type)).toEqual(['call.ended']);
    },
    TIMEOUT,
  );
});
