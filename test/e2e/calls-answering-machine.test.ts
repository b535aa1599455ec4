// Answering-machine detection and recording over real RTP: POST /calls with machine_detection,
// wait_for_beep and record to sipp as the callee, playing audio the test generates (a person's
// "Hello?" then silence, a voicemail greeting ending in a 1 kHz beep, dead air). Each call must
// get its answered_by on the row, in call.started and call.ended and as the workflow variable
// (the first node speaks it), and leave a 2-channel recording with the callee on the left and
// our speech on the right. Prints the verdict and the time from answer to verdict per case.
// Under CI a missing sipp fails.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../src/modules/recordings/wav.js';
import type { CallTable } from '../../src/store/schema.js';
import { answeringCases } from '../support/amd-audio.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TO = '+15551230001';

const SAY = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Answered by {{answered_by}}.' } },
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

/** Mean absolute level of one channel of a 16-bit stereo WAV between two times. */
function level(wav: Buffer, channel: 0 | 1, fromMs: number, toMs: number): number {
  let sum = 0;
  let count = 0;
  for (
    let i = WAV_HEADER_BYTES + Math.floor(fromMs * 16) * 4;
    i + 3 < wav.length && i < WAV_HEADER_BYTES + toMs * 64;
    i += 4
  ) {
    sum += Math.abs(wav.readInt16LE(i + channel * 2));
    count++;
  }
  return count ? sum / count : 0;
}

describe('e2e: answering-machine detection and recording over real RTP (sipp UAS)', () => {
  peerTest(
    'tells a person, a voicemail greeting and dead air apart, and records each call',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'sb-rec-'));
      const n = await startCallNode({ config: { SWITCHBOARD_DATA_DIR: dataDir } });
      nodes.push(n);
      const rows: string[] = ['| case | answered_by | POST /calls to call.started |', '|---|---|---|'];
      for (const [i, c] of (await answeringCases(300)).entries()) {
        const FROM = `+1415555017${i}`;
        const pcap = join(mkdtempSync(join(tmpdir(), 'sb-pcap-')), `${c.name}.pcap`);
        writePcmaPcap(c.pcm, pcap);
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
          to: TO,
          record: true,
          machine_detection: true,
          wait_for_beep: true,
        });
        expect(res.status, JSON.stringify(res.data)).toBe(201);
        const id = res.data.data.id as string;
        const result = await peer.done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        const call = await eventually(async () => {
          const row = await callById(n, id);
          return row && row.status === 'completed' ? row : undefined;
        });
        expect(call.answered_by, c.name).toBe(c.expected);
        const events = (await storedEvents(n)).filter((e) => e.type.startsWith('call.') && e.data.id === id);
        expect(events.map((e) => [e.type, e.data.answered_by])).toEqual([
          ['call.started', c.expected],
          ['call.ended', c.expected],
        ]);
        const session = await n.store.db
          .selectFrom('sessions')
          .select('variables')
          .where('id', '=', call.session_id!)
          .executeTakeFirstOrThrow();
        expect(JSON.parse(session.variables)).toMatchObject({ answered_by: c.expected });

        // The recording: playable, the callee on the left from the answer, our speech on the right.
        expect(call.recording_url).toBe(`http://localhost:8080/api/v1/calls/${id}/recording`);
        const wav = await recordingOf(n, call);
        const h = parseWavHeader(wav)!;
        expect(h).toMatchObject({ channels: 2, sampleRate: 16000, dataBytes: wav.length - WAV_HEADER_BYTES });
        const seconds = h.dataBytes / 64000;
        if (c.name !== 'silence') expect(level(wav, 0, 300, 1200), 'far party, left').toBeGreaterThan(200);
        expect(level(wav, 1, 0, seconds * 1000), 'service speech, right').toBeGreaterThan(100);
        const verdictMs = Date.parse(call.started_at!) - Date.parse(call.created_at);
        rows.push(`| ${c.name} | ${call.answered_by} | ${(verdictMs / 1000).toFixed(1)} s |`);
      }
      console.log(rows.join('\n'));
    },
    240_000,
  );
});

async function recordingOf(n: CallNode, call: CallTable): Promise<Buffer> {
  const res = await n.app.inject({
    method: 'GET',
    url: `/api/v1/calls/${call.id}/recording`,
    headers: { authorization: `Bearer ${n.key}` },
  });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}
