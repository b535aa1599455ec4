// A recording that cannot be written never fails the call: POST /calls with `record: true` to sipp
// as the callee, on a node whose data directory has a plain file where the recordings folder would
// be (as a full or read-only disk would refuse it). The call is answered, runs its workflow and
// ends as any other (completed / workflow_hangup); it has no recording (recording_url null, GET
// …/recording 404) and the reason in recording_error, on the call and in call.ended.
// Under CI a missing sipp fails.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answeringCases } from '../support/amd-audio.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const FROM = '+14155550190';

const SAY = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'This call is not recorded after all.' } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

describe('e2e: a recording that cannot be written (sipp UAS)', () => {
  peerTest(
    'the call goes on and ends as usual; no recording, the reason on the call and in call.ended',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'sb-norec-'));
      writeFileSync(join(dataDir, 'recordings'), 'not a folder');
      const n = await startCallNode({ config: { SWITCHBOARD_DATA_DIR: dataDir } });
      nodes.push(n);
      const human = (await answeringCases(300)).find((c) => c.name === 'human')!;
      const pcap = join(mkdtempSync(join(tmpdir(), 'sb-pcap-')), 'human.pcap');
      writePcmaPcap(human.pcm, pcap);
      const port = await freeUdpPort();
      const peer = sipp(
        sippUasArgs(scenarioFile('outbound-answering.xml', { PCAP: pcap }), port, await freeUdpPort()),
      );
      peers.push(peer);
      const world = await telephonyWorld(n, {
        number: FROM,
        termination: `sip:127.0.0.1:${port}`,
        password: 'sipp-secret-2',
        graphs: { say: SAY },
      });
      const res = await n.api('POST', '/calls', {
        project_id: world.projectId,
        workflow_id: world.workflows.say,
        from: FROM,
        to: '+15551230009',
        record: true,
      });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      const id = res.data.data.id as string;
      // sipp answered, heard the workflow out and got our BYE.
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await eventually(async () => {
        const row = await callById(n, id);
        return row && row.status === 'completed' ? row : undefined;
      });
      expect(call).toMatchObject({ hangup_reason: 'workflow_hangup', recording_url: null });
      expect(call.recording_error).toMatch(/^E[A-Z]+: /);
      const api = await n.api('GET', `/calls/${id}`);
      expect(api.data.data).toMatchObject({ recording_url: null, recording_error: call.recording_error });
      const ended = (await storedEvents(n)).find((e) => e.type === 'call.ended' && e.data.id === id)!;
      expect(ended.data).toMatchObject({ status: 'completed', recording_error: call.recording_error });
      const wav = await n.app.inject({
        method: 'GET',
        url: `/api/v1/calls/${id}/recording`,
        headers: { authorization: `Bearer ${n.key}` },
      });
      expect(wav.statusCode).toBe(404);
    },
    120_000,
  );
});
