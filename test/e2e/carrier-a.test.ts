// The named carrier's profile (carrier_a, Twilio Elastic SIP Trunking) on real SIP, both ways, with
// sipp reproducing the message shapes the carrier documents (modules/sip-trunks/carrier-profile.ts,
// docs/carriers.md), on the wiring `serve` runs (API + TelephonyNode, SQLite, the real clock).
// In: sipp sends an INVITE as the carrier originates one (E.164 request URI at our domain,
// P-Asserted-Identity, X-Twilio-CallSid and X-Twilio-AccountSid, a G.711 offer); the workflow
// speaks and transfers blind, and sipp checks our REFER (Refer-To the E.164 number at the trunk's
// termination host, an edge location's, with user=phone). The call keeps the carrier's ids in its
// metadata, and the transferred execution sends no workflow.completed.
// Out: POST /calls through a carrier_a trunk whose termination host (an edge's) is pointed at sipp
// by the node's resolver; sipp checks the request URI, From and P-Asserted-Identity, a G.711-only
// offer, and its 407 challenge answered with the right digest. Under CI a missing sipp fails instead of skipping.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';
import type { ResolveTarget } from '../../src/telephony/sip/transport/resolve.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';
import {
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
  sippUasArgs,
  type Peer,
} from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const TERMINATION = 'acme.pstn.ashburn.twilio.com';
const CALL_SID = 'CA' + '5f'.repeat(16);
const ACCOUNT_SID = 'AC' + '0e'.repeat(16);
const PASSWORD = 'carrier-a-secret-9';

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

const regexEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('e2e: carrier_a, as its documentation shapes the messages', () => {
  peerTest(
    'in: its INVITE is admitted with its ids in the metadata; our blind transfer REFERs to +E164 at its host',
    async () => {
      const tts = new EspeakTtsProvider();
      const n = await startCallNode({
        tts,
        transferer: createTransferer({ announcer: { tts, voice: 'en' } }),
      });
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
        provider: 'carrier_a',
        termination: `sip:${TERMINATION}`,
        graphs: { transfer: graph },
      });
      const file = scenarioFile(
        'carrier-a-inbound-refer.xml',
        {
          DIALLED: '+14155550123',
          DOMAIN: n.sipDomain,
          CALLER: '+4930123456',
          CALL_SID,
          ACCOUNT_SID,
          REFER_TO: regexEscape(`sip:+15550123@${TERMINATION};user=phone`),
          REFERRED_BY: regexEscape('sip:+14155550123'),
        },
        'transfers',
      );
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, file, await freeUdpPort()));
      peers.push(peer);
      const r = await peer.done;
      expect(r.code, r.out.slice(-3000)).toBe(0);

      const call = await eventually(async () => {
        const row = await n.store.db.selectFrom('calls').select('id').executeTakeFirst();
        const c = row && (await callById(n, row.id));
        return c?.status === 'completed' ? c : undefined;
      });
      expect(call).toMatchObject({
        direction: 'inbound',
        from_number: '+4930123456',
        to_number: '+14155550123',
        hangup_reason: 'transferred',
      });
      const ids = { carrier_call_sid: CALL_SID, carrier_account_sid: ACCOUNT_SID };
      expect(JSON.parse(call.metadata)).toEqual(ids);
      expect((await n.api('GET', `/calls/${call.id}`)).data.data.metadata).toEqual(ids);
      const events = await eventually(async () => {
        const all = await storedEvents(n);
        return all.some((e) => e.type === 'session.ended') ? all : undefined;
      });
      // The call's webhooks carry the carrier's ids, so a call can be found in its logs.
      const ended = events.find((e) => e.type === 'call.ended')!;
      expect(ended.data).toMatchObject({ hangup_reason: 'transferred', metadata: ids });
      expect(events.find((e) => e.type === 'call.started')!.data.metadata).toEqual(ids);
      // Spec 3.3: a transferred execution reached no end or hangup node.
      expect(events.map((e) => e.type).sort()).toEqual(['call.ended', 'call.started', 'session.ended']);
      expect(events.find((e) => e.type === 'session.ended')!.data.end_reason).toBe('transferred');
    },
    TIMEOUT,
  );

  peerTest(
    'out: +E164 request URI at its edge host, caller ID in From and P-Asserted-Identity, G.711 only, 407 digest',
    async () => {
      const port = await freeUdpPort();
      const asked: ResolveTarget[] = [];
      const n = await startCallNode({
        resolve: async (target) => {
          asked.push(target);
          return [{ transport: 'UDP', host: '127.0.0.1', port, reliable: false }];
        },
      });
      nodes.push(n);
      const file = scenarioFile('carrier-a-outbound.xml', {
        DIALLED: regexEscape('+15551230000'),
        DIALLED_PLAIN: '+15551230000',
        HOST: regexEscape(TERMINATION),
        CALLER: regexEscape('+14155550160'),
        USER: 'switchboard',
        PASSWORD,
      });
      const trace = `${mkdtempSync(`${tmpdir()}/sipp-trace-`)}/messages.log`;
      const peer = sipp(sippUasArgs(file, port, await freeUdpPort(), ['-trace_msg', '-message_file', trace]));
      peers.push(peer);
      const world = await telephonyWorld(n, {
        number: '+14155550160',
        provider: 'carrier_a',
        termination: `sip:${TERMINATION}`,
        password: PASSWORD,
        graphs: {
          talk: {
            nodes: [
              { id: 'start', type: 'start', config: {} },
              { id: 'hello', type: 'speak', config: { text: 'Hello from the service.' } },
              {
                id: 'ask',
                type: 'dtmf',
                config: { prompt: 'Press a key.', num_digits: 1, timeout_seconds: 60, save_to_variable: 'k' },
              },
              { id: 'bye', type: 'end', config: {} },
            ],
            edges: [
              { source: 'start', target: 'hello' },
              { source: 'hello', target: 'ask' },
              { source: 'ask', source_handle: 'success', target: 'bye' },
              { source: 'ask', source_handle: 'timeout', target: 'bye' },
            ],
          },
        },
      });
      const res = await n.api('POST', '/calls', {
        project_id: world.projectId,
        workflow_id: world.workflows.talk,
        from: '+14155550160',
        to: '+15551230000',
      });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      const r = await peer.done;
      expect(r.code, r.out.slice(-3000)).toBe(0);
      const call = await eventually(async () => {
        const c = await callById(n, res.data.data.id as string);
        return c && c.ended_at !== null ? c : undefined;
      });
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup' });
      // The INVITE went to the termination host by name (the resolver was asked for it).
      expect(asked[0]).toMatchObject({ host: TERMINATION, port: null, transport: 'udp' });
      // The answer to the 407, checked by hand (RFC 2617 with qop auth) as sipp cannot.
      const auth = /^Proxy-Authorization:\s*Digest (.*)$/im.exec(readFileSync(trace, 'utf8'))?.[1];
      expect(auth, 'no Proxy-Authorization in the trace').toBeDefined();
      const p = Object.fromEntries(
        [...auth!.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)].map((m) => [m[1], m[2] ?? m[3]]),
      );
      expect(p).toMatchObject({ username: 'switchboard', realm: 'sip.twilio.com', qop: 'auth' });
      const md5 = (x: string) => createHash('md5').update(x).digest('hex');
      const ha1 = md5(`switchboard:sip.twilio.com:${PASSWORD}`);
      const ha2 = md5(`INVITE:${p.uri}`);
      expect(p.uri).toBe(`sip:+15551230000@${TERMINATION}`);
      expect(p.response).toBe(md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${ha2}`));
    },
    TIMEOUT,
  );
});
