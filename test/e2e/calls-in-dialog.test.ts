// The far end's requests inside a connected call: sipp puts the call on hold and resumes it with
// re-INVITEs (our SDP answers must mirror the direction: recvonly to its sendonly, sendrecv to
// sendrecv) and sends a keypad digit by SIP INFO (application/dtmf-relay), which the dtmf node
// takes like an RFC 4733 press: the workflow goes down the branch of that digit and hangs up.
// A caller's REFER (handing the workflow's call to someone else) is declined 603 with a Warning,
// and the call goes on until the caller hangs up.
import { afterEach, describe, expect, it } from 'vitest';
import { MENU, startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { finishedCall, storedEvents } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

describe('e2e: in-dialog requests (sipp UAC)', () => {
  peerTest(
    'hold and resume by re-INVITE, then a SIP INFO digit drives the dtmf node',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550170', graphs: { menu: MENU } });
      const scenario = scenarioFile('inbound-in-dialog.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550170',
        CALLER: '+4930555001',
      });
      const result = await sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort())).done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finishedCall(n);
      expect(call.hangup_reason).toBe('workflow_hangup');
      const done = (await storedEvents(n)).find((e) => e.type === 'workflow.completed');
      expect(done?.data.variables).toMatchObject({ choice: '2' });
      expect(done?.data.path).toEqual(['start', 'hello', 'ask', 'route', 'support', 'bye']);
    },
    120_000,
  );

  peerTest(
    "the caller's REFER is declined 603 (Warning 399) and the call goes on until the caller hangs up",
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550171', graphs: { menu: MENU } });
      const scenario = scenarioFile('inbound-refer-declined.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550171',
        CALLER: '+4930555002',
      });
      const result = await sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort())).done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const call = await finishedCall(n);
      expect(call.hangup_reason).toBe('caller_hangup');
    },
    120_000,
  );
});
