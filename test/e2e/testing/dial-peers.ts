// What the dial-node e2e tests share: the workflow that dials (its branches all speak and hang
// up, so the caller's sipp always sees the call end), the callee sipp at the termination address
// and the caller sipp that calls a registered number.
import type { CallNode } from '../../support/call-node.js';
import { freeUdpPort, scenarioFile, sipp, sippArgs, sippUasArgs, type Peer } from '../../support/sipp.js';

/** start → dial (with `dial`'s config) → "Welcome back." on answer, "Nobody answered." otherwise → hangup. */
export function dialWorkflow(dial: Record<string, unknown>) {
  return {
    nodes: [
      { id: 'start', type: 'start', config: {} },
      { id: 'dial', type: 'dial', config: dial },
      { id: 'back', type: 'speak', config: { text: 'Welcome back.' } },
      { id: 'nobody', type: 'speak', config: { text: 'Nobody answered.' } },
      { id: 'bye', type: 'hangup', config: {} },
    ],
    edges: [
      { source: 'start', target: 'dial' },
      { source: 'dial', source_handle: 'answered', target: 'back' },
      { source: 'dial', source_handle: 'no_answer', target: 'nobody' },
      { source: 'dial', source_handle: 'busy', target: 'nobody' },
      { source: 'dial', source_handle: 'failed', target: 'nobody' },
      { source: 'back', target: 'bye' },
      { source: 'nobody', target: 'bye' },
    ],
  };
}

/** A sipp UAS playing `file` on a free port; kept in `peers` so the test's afterEach kills it. */
export async function callee(peers: Peer[], file: string, vars: Record<string, string | number> = {}) {
  const port = await freeUdpPort();
  const peer = sipp(sippUasArgs(scenarioFile(file, vars), port, await freeUdpPort()));
  peers.push(peer);
  return { port, peer };
}

/** A sipp caller dialling `number` on the node; resolves when its scenario is done. */
export async function callIn(n: CallNode, number: string) {
  const scenario = scenarioFile('inbound-answered.xml', {
    DOMAIN: n.sipDomain,
    DIALLED: number,
    CALLER: '+4930555004',
  });
  return sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort())).done;
}
