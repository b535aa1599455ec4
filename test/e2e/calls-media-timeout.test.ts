// The RTP inactivity timeout against a real peer: sipp answers (outbound) or calls (inbound),
// sends about a second of PCMA and then nothing, without a BYE, as a crashed phone or a dead NAT
// mapping would. The workflow waits 30 s for a digit, so only the media timeout
// (MEDIA_TIMEOUT_SECONDS=2 here) can end the call first: it must end completed / media_timeout,
// with call.ended saying so, and sipp must receive our BYE. Under CI a missing sipp fails.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import {
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
  sippUasArgs,
  type Peer,
} from '../support/sipp.js';
import { finishedCall, liveCallRtp, storedEvents } from './testing/call-reads.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

/** Waits for a digit far longer than the media timeout; the digit never comes. */
const WAIT = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'ask', type: 'dtmf', config: { num_digits: 1, timeout_seconds: 30, save_to_variable: 'd' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ],
};

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

/** About a second of a 440 Hz tone as a PCMA pcap for sipp to play. */
function briefPcap(): string {
  const pcm = Int16Array.from({ length: 16000 }, (_, i) =>
    Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'sb-pcap-')), 'brief.pcap');
  writePcmaPcap(pcm, file);
  return file;
}

async function mediaTimeoutNode(): Promise<CallNode> {
  const n = await startCallNode({ config: { MEDIA_TIMEOUT_SECONDS: '2' } });
  nodes.push(n);
  return n;
}

/** The call ended completed / media_timeout, and call.ended carries that reason. */
async function expectMediaTimeout(n: CallNode, direction: 'inbound' | 'outbound'): Promise<void> {
  const call = await finishedCall(n);
  expect(call).toMatchObject({ direction, status: 'completed', hangup_reason: 'media_timeout' });
  const ended = (await storedEvents(n)).filter((e) => e.type === 'call.ended');
  expect(ended.map((e) => [e.data.id, e.data.status, e.data.hangup_reason])).toEqual([
    [call.id, 'completed', 'media_timeout'],
  ]);
  const session = (await storedEvents(n)).find((e) => e.type === 'session.ended');
  expect(session?.data).toMatchObject({ end_reason: 'caller_hangup' });
}

describe('e2e: a far end that goes silent without a BYE is hung up (MEDIA_TIMEOUT_SECONDS)', () => {
  peerTest('inbound: sipp calls, plays a second of audio, then nothing; we send BYE', async () => {
    const n = await mediaTimeoutNode();
    await telephonyWorld(n, { number: '+14155550160', graphs: { wait: WAIT } });
    const scenario = scenarioFile('inbound-media-timeout.xml', {
      DOMAIN: n.sipDomain,
      DIALLED: '+14155550160',
      CALLER: '+4930555000',
      PCAP: briefPcap(),
    });
    const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
    peers.push(peer);
    const watching = liveCallRtp(n);
    const result = await peer.done;
    expect(result.code, result.out.slice(-3000)).toBe(0);
    // sipp's audio did arrive before it stopped: the timeout is of silence, not of no media ever.
    expect((await watching).counters.rtpIn).toBeGreaterThan(10);
    await expectMediaTimeout(n, 'inbound');
  });

  peerTest('outbound: sipp answers, plays a second of audio, then nothing; we send BYE', async () => {
    const n = await mediaTimeoutNode();
    const FROM = '+14155550161';
    const port = await freeUdpPort();
    const peer = sipp(
      sippUasArgs(scenarioFile('outbound-answering.xml', { PCAP: briefPcap() }), port, await freeUdpPort()),
    );
    peers.push(peer);
    const world = await telephonyWorld(n, {
      number: FROM,
      termination: `sip:127.0.0.1:${port}`,
      password: 'sipp-secret-2',
      graphs: { wait: WAIT },
    });
    const res = await n.api('POST', '/calls', {
      project_id: world.projectId,
      workflow_id: world.workflows.wait,
      from: FROM,
      to: '+15551230001',
    });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const watching = liveCallRtp(n);
    const result = await peer.done;
    expect(result.code, result.out.slice(-3000)).toBe(0);
    expect((await watching).counters.rtpIn).toBeGreaterThan(10);
    await expectMediaTimeout(n, 'outbound');
  });
});
