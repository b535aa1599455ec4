// A warm transfer on a real inbound call, with what the transfer-workflow suite does not look at:
// the caller presses keys by SIP INFO while bridged to the human (sipp's
// test/interop/calls/inbound-caller-info.xml), and they cross the bridge to the human's leg as
// RFC 4733 events (the bridge's counters, through the transferer's onBridge hook); and the
// announcement, synthesised for the human only, is metered in the call's tts_characters with the
// workflow's own prompt. The human is a second sipp behind the trunk (digest checked) that hangs
// up 8 s after answering. Under CI a missing sipp fails instead of skipping.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import type { MediaBridge } from '../../src/telephony/media/bridge.js';
import type { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually, finishedCall } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const PROMPT = 'Connecting you to a person.';
const ANNOUNCEMENT = 'A caller is waiting for you.';

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

/** test/interop/transfers/<name> (the human of transfer-workflow.test.ts) in a temp file. */
function humanScenario(name: string): string {
  const text = readFileSync(fileURLToPath(new URL(`../interop/transfers/${name}`, import.meta.url)), 'utf8');
  const file = `${mkdtempSync(`${tmpdir()}/sipp-`)}/${name}`;
  writeFileSync(file, text);
  return file;
}

describe('e2e: warm transfer, SIP INFO keys across the bridge and the announcement metered', () => {
  peerTest(
    "the caller's SIP INFO presses reach the human as RFC 4733; tts_characters counts prompt and announcement",
    async () => {
      const bridges: { bridge: MediaBridge; human: RtpSession }[] = [];
      const tts = new EspeakTtsProvider();
      const n = await startCallNode({
        transferer: createTransferer({
          announcer: { tts, voice: 'en' },
          onBridge: (bridge, human) => bridges.push({ bridge, human }),
        }),
      });
      nodes.push(n);
      const humanPort = await freeUdpPort();
      const graph = {
        nodes: [
          { id: 'start', type: 'start', config: {} },
          { id: 'hold', type: 'speak', config: { text: PROMPT } },
          {
            id: 'human',
            type: 'transfer_to_human',
            config: { destination: 'tel:+15550177', announcement: ANNOUNCEMENT, ring_timeout_seconds: 20 },
          },
          { id: 'sorry', type: 'speak', config: { text: 'Nobody is free.' } },
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
        number: '+14155550180',
        termination: `sip:127.0.0.1:${humanPort}`,
        graphs: { warm: graph },
      });
      // The credentials human-answer-hangup.xml checks (verifyauth).
      await n.store.db
        .updateTable('sip_trunks')
        .set({ auth_username: 'acct', auth_password_enc: n.deps.secretBox.seal('Tr4nsfer-secret') })
        .where('id', '=', world.trunkId)
        .execute();
      const [, ...common] = sippArgs('-', humanScenario('human-answer-hangup.xml'), await freeUdpPort());
      const human = sipp([...common, '-p', String(humanPort), '-rtp_echo']);
      const callerFile = scenarioFile('inbound-caller-info.xml', {
        DIALLED: '+14155550180',
        DOMAIN: n.sipDomain,
        CALLER: '+4930123499',
      });
      const caller = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, callerFile, await freeUdpPort()));
      const [h, c] = await Promise.all([human.done, caller.done]);
      expect(h.code, `human: ${h.out.slice(-3000)}`).toBe(0);
      expect(c.code, `caller: ${c.out.slice(-3000)}`).toBe(0);

      const call = await finishedCall(n);
      expect(call.hangup_reason).toBe('transferred');

      // Both INFO presses crossed the bridge, caller to human, as RFC 4733 on the human's leg.
      expect(bridges).toHaveLength(1);
      const { bridge, human: humanRtp } = bridges[0]!;
      if (process.env.CALL_FACTS) console.info({ counters: bridge.counters, human: humanRtp.counters });
      expect(bridge.counters.digitsAToB).toBe(2);
      // The human's sipp runs -rtp_echo: the events came back from it, so they reached it.
      expect(bridge.counters.digitsBToA).toBe(2);

      // The announcement is metered with the workflow's prompt.
      const tts_characters = await eventually(async () => {
        const rows = await n.store.db
          .selectFrom('usage_events')
          .select(['quantity'])
          .where('metric', '=', 'tts_characters')
          .execute();
        return rows.length > 0 ? rows : undefined;
      });
      expect(tts_characters.map((r) => Number(r.quantity))).toEqual([PROMPT.length + ANNOUNCEMENT.length]);
    },
    120_000,
  );
});
