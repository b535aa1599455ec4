// Answering-machine detection on dialled legs over real RTP: sipp calls in, the workflow dials a
// second sipp (the carrier's UAS) that answers and plays audio the test generates (a voicemail
// greeting ending in a beep, or a person's "Hello?"). With `machine_detection` on the node:
//   - dial, a machine: the leg is hung up before the bridge (sipp must get our BYE), the node
//     leaves by `failed`, the leg is completed / workflow_hangup with answered_by `machine` on its
//     row and in its call.started and call.ended, and `save_answered_by_to` holds `machine`;
//   - dial, a person: bridged to the caller until the person hangs up, the node leaves by
//     `answered`, answered_by `human` on the leg and in the variable;
//   - transfer_to_human, a machine: the transfer fails with transfer_failure_reason `machine`,
//     the leg answered_by `machine`.
// Under CI a missing sipp fails.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answeringCases } from '../support/amd-audio.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import { haveSipp, type Peer } from '../support/sipp.js';
import { eventually, storedEvents } from './testing/call-reads.js';
import { callee, callIn, dialWorkflow } from './testing/dial-peers.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const DIAL = dialWorkflow({
  to: '+15551230000',
  machine_detection: true,
  save_answered_by_to: 'leg_answered_by',
  save_call_id_to: 'leg_id',
});

const WARM = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'human',
      type: 'transfer_to_human',
      config: { destination: 'tel:+15551230000', machine_detection: true, announcement: 'A caller.' },
    },
    { id: 'sorry', type: 'speak', config: { text: 'Sorry: {{transfer_failure_reason}}.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'human' },
    { source: 'human', source_handle: 'failed', target: 'sorry' },
    { source: 'sorry', target: 'bye' },
  ],
};

/** The generated answering audio of `name` as a PCMA pcap sipp can play. */
async function pcapOf(name: 'human' | 'machine'): Promise<string> {
  const c = (await answeringCases(300)).find((x) => x.name === name)!;
  const file = join(mkdtempSync(join(tmpdir(), 'sb-pcap-')), `${name}.pcap`);
  writePcmaPcap(c.pcm, file);
  return file;
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

describe('e2e: answering-machine detection on dial and warm-transfer legs (sipp at both ends, real RTP)', () => {
  peerTest(
    'dial: a voicemail greeting is hung up before the bridge, the node leaves by failed, answered_by machine',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-answering.xml', { PCAP: await pcapOf('machine') });
      const w = await telephonyWorld(n, {
        number: '+14155550220',
        termination: `sip:127.0.0.1:${port}`,
        graphs: { dial: DIAL },
      });
      const caller = await callIn(n, '+14155550220');
      expect(caller.code, caller.out.slice(-3000)).toBe(0);
      const dialled = await peer.done;
      expect(dialled.code, dialled.out.slice(-3000)).toBe(0); // our BYE reached the machine

      const { done, parent, leg, events } = await callAndLeg(n);
      expect(done.data.path).toEqual(['start', 'dial', 'nobody', 'bye']);
      expect(leg).toMatchObject({
        parent_call_id: parent.id,
        workflow_id: w.workflows.dial,
        status: 'completed',
        hangup_reason: 'workflow_hangup',
        answered_by: 'machine',
      });
      expect(leg.started_at).not.toBeNull();
      expect(parent.answered_by).toBeNull();
      expect(events.map((e) => [e.type, e.data.answered_by])).toEqual([
        ['call.started', 'machine'],
        ['call.ended', 'machine'],
      ]);
      expect(done.data.variables).toMatchObject({ leg_answered_by: 'machine', leg_id: leg.id });
      const api = await n.api('GET', `/calls/${leg.id}`);
      expect(api.data.data).toMatchObject({ answered_by: 'machine', parent_call_id: parent.id });
    },
    TIMEOUT,
  );

  peerTest(
    'dial: a person is bridged until they hang up, the node leaves by answered, answered_by human',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-answering-bye.xml', {
        PCAP: await pcapOf('human'),
        HANGUP_MS: 5000,
      });
      await telephonyWorld(n, {
        number: '+14155550221',
        termination: `sip:127.0.0.1:${port}`,
        graphs: { dial: DIAL },
      });
      const caller = await callIn(n, '+14155550221');
      expect(caller.code, caller.out.slice(-3000)).toBe(0);
      const dialled = await peer.done;
      expect(dialled.code, dialled.out.slice(-3000)).toBe(0);

      const { done, leg, events } = await callAndLeg(n);
      expect(done.data.path).toEqual(['start', 'dial', 'back', 'bye']);
      expect(leg).toMatchObject({
        status: 'completed',
        hangup_reason: 'callee_hangup',
        answered_by: 'human',
      });
      expect(events.map((e) => [e.type, e.data.answered_by])).toEqual([
        ['call.started', 'human'],
        ['call.ended', 'human'],
      ]);
      expect(done.data.variables.leg_answered_by).toBe('human');
    },
    TIMEOUT,
  );

  peerTest(
    'transfer_to_human: a voicemail greeting fails the transfer with transfer_failure_reason machine',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const { port, peer } = await callee(peers, 'outbound-answering.xml', { PCAP: await pcapOf('machine') });
      await telephonyWorld(n, {
        number: '+14155550222',
        termination: `sip:127.0.0.1:${port}`,
        graphs: { warm: WARM },
      });
      const caller = await callIn(n, '+14155550222');
      expect(caller.code, caller.out.slice(-3000)).toBe(0);
      const dialled = await peer.done;
      expect(dialled.code, dialled.out.slice(-3000)).toBe(0);

      const { done, leg, events } = await callAndLeg(n);
      expect(done.data.path).toEqual(['start', 'human', 'sorry', 'bye']);
      expect(done.data.variables.transfer_failure_reason).toBe('machine');
      expect(leg).toMatchObject({
        status: 'completed',
        hangup_reason: 'workflow_hangup',
        answered_by: 'machine',
      });
      expect(events.map((e) => [e.type, e.data.answered_by])).toEqual([
        ['call.started', 'machine'],
        ['call.ended', 'machine'],
      ]);
    },
    TIMEOUT,
  );
});
