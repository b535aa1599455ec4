// The RTP inactivity timeout against a real peer: sipp answers (outbound) or calls (inbound),
// sends about a second of PCMA and then nothing, without a BYE, as a crashed phone or a dead NAT
// mapping would. The workflow waits 30 s for a digit, so only the media timeout
// (MEDIA_TIMEOUT_SECONDS=2 here) can end the call first: it must end completed / media_timeout,
// with call.ended saying so, and sipp must receive our BYE. A caller that holds the call (and
// sends nothing) for three timeouts is not hung up until it resumes; one that dies while holding
// (no RTP, no RTCP) is hung up by the hold bound (MEDIA_HOLD_TIMEOUT_SECONDS). A dial node's bridged leg whose party
// goes silent the same way ends media_timeout too, and the caller (still talking) gets the
// workflow back. Under CI a missing sipp fails.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
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
import { eventually, finishedCall, liveCallRtp, storedEvents } from './testing/call-reads.js';
import { callee, dialWorkflow } from './testing/dial-peers.js';

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

/** `seconds` of a 440 Hz tone as a PCMA pcap for sipp to play. */
function briefPcap(seconds = 1): string {
  const pcm = Int16Array.from({ length: 16000 * seconds }, (_, i) =>
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

  peerTest(
    'hold: a caller silent on hold for three timeouts is not hung up; after its resume it is',
    async () => {
      const n = await mediaTimeoutNode();
      await telephonyWorld(n, { number: '+14155550163', graphs: { wait: WAIT } });
      const scenario = scenarioFile('inbound-media-hold.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550163',
        CALLER: '+4930555000',
        PCAP: briefPcap(),
        HOLD_MS: 6000,
      });
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
      peers.push(peer);
      // sipp fails if our BYE comes while it holds (it waits for the 200 of its resume instead).
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      await expectMediaTimeout(n, 'inbound');
    },
  );

  peerTest('hold: a caller that dies while holding is hung up by the hold bound, not left open', async () => {
    // The media timeout is off: only MEDIA_HOLD_TIMEOUT_SECONDS can end this call.
    const warnings: { msg: string; media_hold_timeout_seconds?: number }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
    const n = await startCallNode({
      config: { MEDIA_TIMEOUT_SECONDS: '0', MEDIA_HOLD_TIMEOUT_SECONDS: '2' },
      logger,
    });
    nodes.push(n);
    await telephonyWorld(n, { number: '+14155550164', graphs: { wait: WAIT } });
    const scenario = scenarioFile('inbound-media-hold-dies.xml', {
      DOMAIN: n.sipDomain,
      DIALLED: '+14155550164',
      CALLER: '+4930555000',
      PCAP: briefPcap(),
    });
    const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
    peers.push(peer);
    const result = await peer.done; // sipp fails unless our BYE reaches it while it holds
    expect(result.code, result.out.slice(-3000)).toBe(0);
    await expectMediaTimeout(n, 'inbound');
    expect(warnings.filter((w) => w.msg.includes('media_timeout'))).toEqual([
      expect.objectContaining({
        msg: 'no RTP or RTCP from the far end while it held the call: hanging up (media_timeout)',
        media_hold_timeout_seconds: 2,
      }),
    ]);
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

  peerTest(
    'dial leg: the dialled party goes silent; its leg ends media_timeout, the caller goes on',
    async () => {
      const n = await mediaTimeoutNode();
      const NUMBER = '+14155550162';
      const { port, peer: dialled } = await callee(peers, 'outbound-answering.xml', { PCAP: briefPcap() });
      const dial = dialWorkflow({ to: '+15551230000', ring_timeout_seconds: 10 });
      await telephonyWorld(n, { number: NUMBER, termination: `sip:127.0.0.1:${port}`, graphs: { dial } });
      // The caller talks all along (12 s of audio), so only the dialled party's silence counts.
      const scenario = scenarioFile('inbound-media-timeout.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: NUMBER,
        CALLER: '+4930555000',
        PCAP: briefPcap(12),
      });
      const caller = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
      peers.push(caller);
      const leg = await dialled.done;
      expect(leg.code, leg.out.slice(-3000)).toBe(0); // our BYE reached the silent party
      const callerDone = await caller.done;
      expect(callerDone.code, callerDone.out.slice(-3000)).toBe(0);

      const rows = await eventually(async () => {
        const all = await n.store.db.selectFrom('calls').selectAll().execute();
        return all.length === 2 && all.every((c) => c.ended_at !== null) ? all : null;
      });
      const parent = rows.find((c) => c.parent_call_id === null)!;
      const legRow = rows.find((c) => c.parent_call_id !== null)!;
      expect(legRow).toMatchObject({ status: 'completed', hangup_reason: 'media_timeout' });
      // The caller was not silent: the workflow went on after the leg (answered → back → bye).
      expect(parent).toMatchObject({ status: 'completed', hangup_reason: 'workflow_hangup' });
      const events = await storedEvents(n);
      const done = events.find((e) => e.type === 'workflow.completed');
      expect(done?.data.path).toEqual(['start', 'dial', 'back', 'bye']);
      const legEnded = events.filter((e) => e.type === 'call.ended' && e.data.id === legRow.id);
      expect(legEnded.map((e) => e.data.hangup_reason)).toEqual(['media_timeout']);
    },
  );
});
