// The `dial` node on a real call: sipp calls in, the workflow dials a second sipp (the carrier's
// UAS) through the trunk and bridges it to the caller; when that party hangs up the caller gets
// the workflow back (`answered`), which speaks and hangs up. Both sipps must see their whole
// scenario (the caller gets our BYE, the callee's BYE is answered).
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callee, callIn, dialWorkflow } from './testing/dial-peers.js';
import { eventually, finishedCall, storedEvents, transcript } from './testing/call-reads.js';
import { haveSipp, type Peer } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const DIAL = dialWorkflow({ to: '+15551230000', ring_timeout_seconds: 20 });

describe('e2e: the dial node on a phone call (two sipps)', () => {
  peerTest(
    'the dialled party answers, talks, hangs up; the caller is back in the workflow, which says so and hangs up',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port: calleePort, peer } = await callee(peers, 'outbound-answer.xml');
      await telephonyWorld(n, {
        number: '+14155550200',
        termination: `sip:127.0.0.1:${calleePort}`,
        graphs: { dial: DIAL },
      });
      const caller = await callIn(n, '+14155550200');
      expect(caller.code, caller.out.slice(-3000)).toBe(0);
      const dialled = await peer.done;
      expect(dialled.code, dialled.out.slice(-3000)).toBe(0);

      const call = await finishedCall(n);
      expect(call).toMatchObject({ direction: 'inbound', hangup_reason: 'workflow_hangup' });
      const done = (await storedEvents(n)).find((e) => e.type === 'workflow.completed');
      expect(done?.data.path).toEqual(['start', 'dial', 'back', 'bye']);
      expect((await transcript(n, call.session_id!)).map((m) => m.content)).toContain('Welcome back.');
      // The dialled leg is a call row of its own, the caller's call its parent (calls-dial-legs.test.ts).
      const legs = await n.store.db
        .selectFrom('calls')
        .select('id')
        .where('parent_call_id', '=', call.id)
        .execute();
      expect(legs).toHaveLength(1);
    },
    120_000,
  );

  peerTest(
    'the dialled party is busy (486): the node leaves by busy at once',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-reject.xml', { STATUS: 486, REASON: 'Busy Here' });
      await telephonyWorld(n, {
        number: '+14155550201',
        termination: `sip:127.0.0.1:${port}`,
        graphs: { dial: DIAL },
      });
      const caller = await callIn(n, '+14155550201');
      expect(caller.code, caller.out.slice(-3000)).toBe(0);
      expect((await peer.done).code).toBe(0);
      const done = await eventually(async () =>
        (await storedEvents(n)).find((e) => e.type === 'workflow.completed'),
      );
      expect(done.data.path).toEqual(['start', 'dial', 'nobody', 'bye']);
    },
    120_000,
  );
});
