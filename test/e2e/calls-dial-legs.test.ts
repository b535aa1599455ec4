// A dial node's leg is a call of its own: sipp calls in, the workflow dials a second sipp (the
// carrier's UAS) and the leg gets a call record (outbound, parent_call_id the caller's call, the
// caller's workflow and version), the states of spec 3.1 with call.started / call.ended, a unit of
// the calls quota and its voice minutes; its id goes to save_call_id_to. Answered on both stores;
// busy (486), no answer (ring timeout), failed (503) and a leg refused by the calls quota (never
// dialled: nothing reaches the termination address) on SQLite.
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { storeKinds, type StoreKind } from '../support/stores.js';
import { callee, callIn, dialWorkflow } from './testing/dial-peers.js';
import { eventually, storedEvents } from './testing/call-reads.js';
import { haveSipp, type Peer } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const DIAL = dialWorkflow({ to: '+15551230000', ring_timeout_seconds: 1, save_call_id_to: 'leg_id' });

async function world(n: CallNode, number: string, termination: string) {
  return telephonyWorld(n, { number, termination, graphs: { dial: DIAL } });
}

/** The caller's call and its leg, once the workflow is over and both have ended. */
async function callAndLeg(n: CallNode) {
  const done = await eventually(async () =>
    (await storedEvents(n)).find((e) => e.type === 'workflow.completed'),
  );
  const rows = await eventually(async () => {
    const all = await n.store.db.selectFrom('calls').selectAll().execute();
    return all.length === 2 && all.every((c) => c.ended_at !== null) ? all : null;
  });
  const parent = rows.find((c) => c.parent_call_id === null)!;
  const leg = rows.find((c) => c.parent_call_id !== null)!;
  const events = (await storedEvents(n)).filter((e) => e.type.startsWith('call.') && e.data.id === leg.id);
  return { done, parent, leg, events };
}

async function usage(n: CallNode, metric: string) {
  return n.store.db
    .selectFrom('usage_events')
    .select(['quantity', 'provider'])
    .where('metric', '=', metric)
    .execute();
}

async function legOutcome(
  n: CallNode,
  number: string,
  termination: string,
  expected: { status: string; hangup_reason: string },
) {
  const w = await world(n, number, termination);
  const caller = await callIn(n, number);
  expect(caller.code, caller.out.slice(-3000)).toBe(0);
  const { done, parent, leg, events } = await callAndLeg(n);
  expect(done.data.path).toEqual(['start', 'dial', 'nobody', 'bye']);
  expect(leg).toMatchObject({
    direction: 'outbound',
    parent_call_id: parent.id,
    workflow_id: w.workflows.dial,
    workflow_version: 1,
    from_number: number,
    to_number: '+15551230000',
    started_at: null,
    duration_seconds: 0,
    ...expected,
  });
  // Never connected: call.ended only, and no voice minutes of its own (the caller's only).
  expect(events.map((e) => e.type)).toEqual(['call.ended']);
  expect(events[0]!.data).toMatchObject({ ...expected, parent_call_id: parent.id });
  expect(await usage(n, 'voice_minutes')).toHaveLength(1);
  // The saved id is the leg's whatever the outcome.
  expect(done.data.variables.leg_id).toBe(leg.id);
  return leg;
}

describe('e2e: a dial node leg is a call of its own (sipp at both ends)', () => {
  for (const kind of storeKinds() as StoreKind[]) {
    peerTest(
      `answered (${kind.name}): in_progress → completed, call.started and call.ended, a calls unit and voice minutes, the id saved`,
      async () => {
        const n = await startCallNode({ store: kind });
        nodes.push(n);
        const { port, peer } = await callee(peers, 'outbound-answer.xml');
        const w = await world(n, '+14155550210', `sip:127.0.0.1:${port}`);
        const caller = await callIn(n, '+14155550210');
        expect(caller.code, caller.out.slice(-3000)).toBe(0);
        const dialled = await peer.done;
        expect(dialled.code, dialled.out.slice(-3000)).toBe(0);

        const { done, parent, leg, events } = await callAndLeg(n);
        expect(done.data.path).toEqual(['start', 'dial', 'back', 'bye']);
        expect(parent).toMatchObject({ direction: 'inbound', parent_call_id: null });
        expect(leg).toMatchObject({
          direction: 'outbound',
          status: 'completed',
          hangup_reason: 'callee_hangup',
          parent_call_id: parent.id,
          workflow_id: w.workflows.dial,
          workflow_version: 1,
          from_number: '+14155550210',
          to_number: '+15551230000',
          phone_number_id: w.numberId,
          session_id: null,
        });
        expect(leg.started_at).not.toBeNull();
        expect(leg.duration_seconds).toBeGreaterThanOrEqual(1);
        expect(events.map((e) => e.type)).toEqual(['call.started', 'call.ended']);
        expect(events[0]!.data).toMatchObject({ status: 'in_progress', parent_call_id: parent.id });
        expect(events[1]!.data).toMatchObject({
          status: 'completed',
          hangup_reason: 'callee_hangup',
          parent_call_id: parent.id,
          duration_seconds: leg.duration_seconds,
        });
        expect(done.data.variables.leg_id).toBe(leg.id);
        // The API shows the leg with its parent.
        const api = await n.api('GET', `/calls/${leg.id}`);
        expect(api.data.data).toMatchObject({ parent_call_id: parent.id, direction: 'outbound' });
        const legs = await n.api('GET', `/calls?parent_call_id=${parent.id}`);
        expect(legs.data.data.map((c: { id: string }) => c.id)).toEqual([leg.id]);
        // One calls unit for the caller's call, one for the leg; voice minutes for each.
        expect(await usage(n, 'calls')).toHaveLength(2);
        const minutes = await usage(n, 'voice_minutes');
        expect(minutes).toHaveLength(2);
        expect(minutes.map((m) => Number(m.quantity))).toContainEqual(leg.duration_seconds! / 60);
      },
      TIMEOUT,
    );
  }

  peerTest(
    'busy (486): busy / busy, call.ended only, the node leaves by busy',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-reject.xml', { STATUS: 486, REASON: 'Busy Here' });
      await legOutcome(n, '+14155550211', `sip:127.0.0.1:${port}`, { status: 'busy', hangup_reason: 'busy' });
      expect((await peer.done).code).toBe(0);
    },
    TIMEOUT,
  );

  peerTest(
    'no answer within ring_timeout_seconds: CANCEL, no_answer / ring_timeout',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-no-answer.xml');
      await legOutcome(n, '+14155550212', `sip:127.0.0.1:${port}`, {
        status: 'no_answer',
        hangup_reason: 'ring_timeout',
      });
      expect((await peer.done).code).toBe(0);
    },
    TIMEOUT,
  );

  peerTest(
    'the trunk refuses (503): failed / carrier_error',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-reject.xml', {
        STATUS: 503,
        REASON: 'Service Unavailable',
      });
      await legOutcome(n, '+14155550213', `sip:127.0.0.1:${port}`, {
        status: 'failed',
        hangup_reason: 'carrier_error',
      });
      expect((await peer.done).code).toBe(0);
    },
    TIMEOUT,
  );

  peerTest(
    'the calls quota is used up by the caller: the leg is recorded failed / quota_exhausted and never dialled',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      // The inbound call takes the only unit.
      await n.store.db.updateTable('workspaces').set({ plan_calls: 1 }).execute();
      const termination = createSocket('udp4');
      const received: Buffer[] = [];
      termination.on('message', (m) => received.push(m));
      await new Promise<void>((resolve) => termination.bind(0, '127.0.0.1', resolve));
      try {
        await legOutcome(n, '+14155550214', `sip:127.0.0.1:${termination.address().port}`, {
          status: 'failed',
          hangup_reason: 'quota_exhausted',
        });
        expect(await usage(n, 'calls')).toHaveLength(1);
        expect(received).toHaveLength(0);
      } finally {
        termination.close();
      }
    },
    TIMEOUT,
  );
});
