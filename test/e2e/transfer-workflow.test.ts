// Transfer nodes of a workflow on a real inbound call, on the wiring `serve` runs (API +
// TelephonyNode on SQLite with the real clock) with the transferer the service uses.
// transfer_call: sipp calls in as the carrier (test/interop/transfers/inbound-refer.xml), the
// workflow speaks, then REFERs to tel:+15550123 (Refer-To checked by sipp as the trunk's user=phone
// SIP URI); NOTIFY 100 and 200 are followed and the call host leaves the call with BYE: the call
// ends completed / transferred, the session transferred, and the transcript up to the hand-off stays
// on the conversation. A carrier answering the REFER 403 sends the workflow down its failed branch
// with transfer_failure_reason refer_rejected_403.
// transfer_to_human: a second sipp is the human behind the trunk (digest checked, -rtp_echo),
// answering and hanging up after 8 s (call completed / transferred, the caller gets our BYE), or
// not answering (CANCEL at the ring timeout, the failed branch speaks the reason).
// Under CI a missing sipp fails instead of skipping.
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, transcript } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

/** The API and a TelephonyNode as `serve` builds them, with the transferer main.ts passes. */
function startNode(): Promise<CallNode> {
  const tts = new EspeakTtsProvider();
  return startCallNode({ tts, transferer: createTransferer({ announcer: { tts, voice: 'en' } }) });
}

/** test/interop/transfers/<name> with its __NAMES__ filled in, in a temp file. */
const scenario = (name: string, vars: Record<string, string>) => scenarioFile(name, vars, 'transfers');

const regexEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('e2e: transfer nodes of a workflow on an inbound call', () => {
  peerTest(
    'speak, then REFER: NOTIFY 100 and 200 followed, call completed / transferred, transcript kept',
    async () => {
      const n = await startNode();
      nodes.push(n);
      const graph = {
        nodes: [
          { id: 'start', type: 'start', config: {} },
          { id: 'say', type: 'speak', config: { text: 'Transferring you now.' } },
          { id: 'xfer', type: 'transfer_call', config: { destination: 'tel:+15550123' } },
          { id: 'bye', type: 'hangup', config: {} },
        ],
        edges: [
          { source: 'start', target: 'say' },
          { source: 'say', target: 'xfer' },
          { source: 'xfer', target: 'bye', source_handle: 'failed' },
        ],
      };
      await telephonyWorld(n, {
        number: '+14155550123',
        termination: 'sip:carrier.example.test:5999',
        graphs: { transfer: graph },
      });
      const file = scenario('inbound-refer.xml', {
        DIALLED: '+14155550123',
        DOMAIN: n.sipDomain,
        CALLER: '+4930123456',
        REFER_TO: regexEscape('sip:+15550123@carrier.example.test:5999;user=phone'),
      });
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, file, await freeUdpPort()));
      const r = await peer.done;
      expect(r.code, r.out.slice(-3000)).toBe(0);

      const call = await eventually(async () => {
        const row = await n.store.db
          .selectFrom('calls')
          .select('id')
          .where('direction', '=', 'inbound')
          .executeTakeFirst();
        const c = row && (await callById(n, row.id));
        return c?.status === 'completed' ? c : undefined;
      });
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'transferred' });
      const session = await eventually(() =>
        n.store.db
          .selectFrom('sessions')
          .selectAll()
          .where('call_id', '=', call.id)
          .where('status', '=', 'ended')
          .executeTakeFirst(),
      );
      expect(session.end_reason).toBe('transferred');
      const said = await transcript(n, session.id);
      expect(said.map((m) => m.content)).toContain('Transferring you now.');
    },
    TIMEOUT,
  );

  peerTest(
    'the carrier refuses the REFER (403): the workflow goes on by failed with refer_rejected_403',
    async () => {
      const n = await startNode();
      nodes.push(n);
      const graph = {
        nodes: [
          { id: 'start', type: 'start', config: {} },
          { id: 'xfer', type: 'transfer_call', config: { destination: 'sip:desk@pbx.example.test' } },
          { id: 'sorry', type: 'speak', config: { text: 'Transfer failed ({{transfer_failure_reason}}).' } },
          { id: 'bye', type: 'hangup', config: {} },
        ],
        edges: [
          { source: 'start', target: 'xfer' },
          { source: 'xfer', target: 'sorry', source_handle: 'failed' },
          { source: 'sorry', target: 'bye' },
        ],
      };
      await telephonyWorld(n, { number: '+14155550123', graphs: { refused: graph } });
      const file = scenario('inbound-refer-rejected.xml', {
        DIALLED: '+14155550123',
        DOMAIN: n.sipDomain,
        CALLER: '+4930123456',
      });
      const r = await sipp(sippArgs(`127.0.0.1:${n.sipPort}`, file, await freeUdpPort())).done;
      expect(r.code, r.out.slice(-3000)).toBe(0);
      const call = await eventually(async () => {
        const row = await n.store.db
          .selectFrom('calls')
          .select('id')
          .where('direction', '=', 'inbound')
          .executeTakeFirst();
        const c = row && (await callById(n, row.id));
        return c?.status === 'completed' ? c : undefined;
      });
      expect(call.hangup_reason).toBe('workflow_hangup');
      const session = await eventually(() =>
        n.store.db
          .selectFrom('sessions')
          .selectAll()
          .where('call_id', '=', call.id)
          .where('status', '=', 'ended')
          .executeTakeFirst(),
      );
      const said = await transcript(n, session.id);
      expect(said.map((m) => m.content)).toContain('Transfer failed (refer_rejected_403).');
    },
    TIMEOUT,
  );

  /** An inbound call into a transfer_to_human workflow, the human played by a second sipp. */
  async function warmCall(humanScenario: string, ringTimeoutSeconds: number) {
    const n = await startNode();
    nodes.push(n);
    const humanPort = await freeUdpPort();
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'hold', type: 'speak', config: { text: 'Connecting you to a person.' } },
        {
          id: 'human',
          type: 'transfer_to_human',
          config: {
            destination: 'tel:+15550177',
            announcement: 'A caller is waiting for you.',
            ring_timeout_seconds: ringTimeoutSeconds,
          },
        },
        { id: 'sorry', type: 'speak', config: { text: 'Nobody is free ({{transfer_failure_reason}}).' } },
        { id: 'bye', type: 'hangup', config: {} },
      ],
      edges: [
        { source: 'start', target: 'hold' },
        { source: 'hold', target: 'human' },
        { source: 'human', target: 'sorry', source_handle: 'failed' },
        { source: 'sorry', target: 'bye' },
      ],
    };
    const world = await telephonyWorld(n, {
      number: '+14155550123',
      termination: `sip:127.0.0.1:${humanPort}`,
      graphs: { warm: graph },
    });
    // The credentials human-answer*.xml checks (verifyauth).
    await n.store.db
      .updateTable('sip_trunks')
      .set({ auth_username: 'acct', auth_password_enc: n.deps.secretBox.seal('Tr4nsfer-secret') })
      .where('id', '=', world.trunkId)
      .execute();
    // sipp as a UAS takes no target; the common arguments after it, plus its port and the echo.
    const [, ...common] = sippArgs('-', scenario(humanScenario, {}), await freeUdpPort());
    const human = sipp([...common, '-p', String(humanPort), '-rtp_echo']);
    const callerFile = scenario('inbound-caller.xml', {
      DIALLED: '+14155550123',
      DOMAIN: n.sipDomain,
      CALLER: '+4930123456',
    });
    const caller = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, callerFile, await freeUdpPort()));
    const [h, c] = await Promise.all([human.done, caller.done]);
    expect(h.code, `human: ${h.out.slice(-3000)}`).toBe(0);
    expect(c.code, `caller: ${c.out.slice(-3000)}`).toBe(0);
    const call = await eventually(async () => {
      const row = await n.store.db
        .selectFrom('calls')
        .select('id')
        .where('direction', '=', 'inbound')
        .executeTakeFirst();
      const r = row && (await callById(n, row.id));
      return r?.status === 'completed' ? r : undefined;
    });
    const session = await eventually(() =>
      n.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('call_id', '=', call.id)
        .where('status', '=', 'ended')
        .executeTakeFirst(),
    );
    return { n, call, session };
  }

  peerTest(
    'transfer_to_human: the human answers (digest), hears the announcement, is bridged, hangs up; caller gets BYE',
    async () => {
      const { n, call, session } = await warmCall('human-answer-hangup.xml', 20);
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'transferred' });
      expect(session.end_reason).toBe('transferred');
      // The transcript up to the hand-off stays on the conversation.
      const said = await transcript(n, session.id);
      expect(said.map((m) => m.content)).toContain('Connecting you to a person.');
      // The bridged talk counts: the human hung up 8 s after answering, the call lasted that long.
      expect(call.duration_seconds).toBeGreaterThanOrEqual(8);
    },
    TIMEOUT,
  );

  peerTest(
    'transfer_to_human: no answer, CANCEL at the ring timeout, the workflow goes on by failed',
    async () => {
      const { n, call, session } = await warmCall('human-no-answer.xml', 2);
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'workflow_hangup' });
      expect(session.end_reason).toBe('completed');
      // The failed branch ran with the reason in transfer_failure_reason.
      const said = await transcript(n, session.id);
      expect(said.map((m) => m.content)).toContain('Nobody is free (no_answer).');
    },
    TIMEOUT,
  );
});
