// Session timers on an outbound call over real SIP: sipp as the carrier's UAS checks that our
// INVITE asks for them (Supported: timer, Session-Expires: 1800, Min-SE: 90) and answers with
// Session-Expires: 90 and the refresher the test picks; the live call then runs that timer (we
// refresh when the 2xx says refresher=uac). One call runs its refresh over the wire: with the
// shortest interval RFC 4028 allows (90 s) our UPDATE goes out at 45 s, so that test takes about
// 50 s; the other refresh paths (their refreshes, a failed one ending the call) are tested on a
// FakeClock in session-refresh.test.ts, session-refresh-bye.test.ts and
// live-call-session-timer.test.ts.
// A carrier whose Min-SE is above our 1800 s answers the first INVITE 422 (Min-SE: 3600): sipp
// checks that the INVITE that follows is the same call attempt asking for Session-Expires of at
// least 3600, and the call then runs that interval (RFC 4028 7.4).
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually, finishedCall } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const FROM = '+14155550170';
const TO = '+15551239999';

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const TALK = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Hello, this call keeps its session alive.' } },
    {
      id: 'wait',
      type: 'dtmf',
      config: { num_digits: 1, timeout_seconds: 60, save_to_variable: 'key' },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'wait' },
    { source: 'wait', source_handle: 'success', target: 'bye' },
    { source: 'wait', source_handle: 'timeout', target: 'bye' },
  ],
};

/** sipp as the carrier running `file`, the service with a trunk ending there, and one call to it. */
async function outboundCall(file: string, vars: Record<string, string> = {}) {
  const n = await startCallNode();
  nodes.push(n);
  const port = await freeUdpPort();
  const scenario = scenarioFile(file, vars);
  const peer = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
  peers.push(peer);
  const world = await telephonyWorld(n, {
    number: FROM,
    termination: `sip:127.0.0.1:${port}`,
    graphs: { talk: TALK },
  });
  const res = await n.api('POST', '/calls', {
    project_id: world.projectId,
    workflow_id: world.workflows.talk,
    from: FROM,
    to: TO,
  });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return { n, peer, id: res.data.data.id as string };
}

describe('e2e: outbound session timers (sipp UAS)', () => {
  for (const [refresher, weRefresh] of [
    ['uac', true],
    ['uas', false],
  ] as const) {
    peerTest(
      `our INVITE asks for timers; the 2xx's refresher=${refresher} makes ${weRefresh ? 'us' : 'the callee'} the refresher`,
      async () => {
        const { n, id, peer } = await outboundCall('outbound-session-timer.xml', { REFRESHER: refresher });
        const live = await eventually(async () => n.node.calls.find(id));
        expect(live.sessionTimer).toEqual({ seconds: 90, weRefresh });
        const result = await peer.done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        const call = await finishedCall(n, id);
        expect(call.hangup_reason).toBe('callee_hangup');
      },
      120_000,
    );
  }

  peerTest(
    'we refresh over real SIP: an UPDATE at half the 90 s interval keeps the call up until the callee hangs up',
    async () => {
      const { n, id, peer } = await outboundCall('outbound-session-refresh.xml');
      const live = await eventually(async () => n.node.calls.find(id));
      expect(live.sessionTimer).toEqual({ seconds: 90, weRefresh: true });
      // sipp exits 0 only if our UPDATE arrived with Session-Expires: 90;refresher=uac and
      // Supported: timer, and its BYE (after the refresh) was answered.
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finishedCall(n, id);
      expect(call.hangup_reason).toBe('callee_hangup');
      expect(call.duration_seconds).toBeGreaterThanOrEqual(45);
    },
    150_000,
  );

  peerTest(
    '422 with Min-SE 3600: the INVITE is retried asking for at least 3600 s, and the call runs that timer',
    async () => {
      const { n, id, peer } = await outboundCall('outbound-422.xml');
      // sipp failing a check ends it at once: say so instead of waiting for a call that never comes.
      const early = peer.done.then((r): never => {
        throw new Error(`sipp ended before the call was up (${r.code}): ${r.out.slice(-3000)}`);
      });
      const live = await Promise.race([eventually(async () => n.node.calls.find(id)), early]);
      expect(live.sessionTimer).toEqual({ seconds: 3600, weRefresh: true });
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finishedCall(n, id);
      expect(call.hangup_reason).toBe('callee_hangup');
    },
    120_000,
  );
});
