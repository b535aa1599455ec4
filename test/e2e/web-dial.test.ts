// A `dial` node on a web session (browser voice): a Node-side browser (ClientPeer, Opus over
// node-datachannel) joins the session over the realtime socket, the workflow dials through the
// `from` number's trunk, and the leg is bridged to the browser. baresip (Debian) answers as the
// dialled party, sending a 440 Hz sine and recording what it decodes: the browser's 700 Hz tone
// must be in that recording, and baresip's tone in what the browser decodes. The leg is a call
// record of its own (session_id the web session, no parent call) with call.started and
// call.ended; the browser leaving ends the session and hangs the leg up. A sipp callee presses
// keys (RFC 4733) and hangs up: the browser is shown each key as a `dial_dtmf` frame on the socket
// and message on its data channel, and the workflow has the line back (`answered`); busy and no
// answer leave by their handles; a web session that never offered audio leaves by `failed` with
// `channel_unsupported`, and a `from` that is not a registered number fails before any record.
// Every case on each store this machine has (SQLite, and PostgreSQL with TEST_DATABASE_URL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientPeer } from '../../src/webrtc/client-peer.js';
import { startCallNode, telephonyWorld, type CallNode, type Loose } from '../support/call-node.js';
import { startBaresipCallee, toneShare } from '../support/baresip.js';
import { concat, tone } from '../support/generated-audio.js';
import { have, until } from '../support/media-harness.js';
import { realtimeSocket, trickle, type RealtimeSocket } from '../support/realtime-socket.js';
import { haveSipp, type Peer } from '../support/sipp.js';
import { storeKinds, type StoreKind } from '../support/stores.js';
import { callee } from './testing/dial-peers.js';
import { eventually, storedEvents } from './testing/call-reads.js';

const baresipTest = (have('baresip') && have('openssl')) || process.env.CI ? it : it.skip;
const sippTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const OUR_TONE_HZ = 700;
const THEIR_TONE_HZ = 440;
const NUMBER = '+14155550230';
const CALLEE = '+15551230000';

const cleanups: Array<() => Promise<void> | void> = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** start → dial → (answered) "Welcome back." → end; any other handle → "Nobody answered." → end. */
function webDialGraph(dial: Record<string, unknown>) {
  return {
    nodes: [
      { id: 'start', type: 'start', config: {} },
      { id: 'dial', type: 'dial', config: dial },
      { id: 'back', type: 'speak', config: { text: 'Welcome back.' } },
      { id: 'nobody', type: 'speak', config: { text: 'Nobody answered.' } },
      { id: 'bye', type: 'end', config: {} },
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

const DIAL = { to: CALLEE, from: NUMBER, ring_timeout_seconds: 5, save_call_id_to: 'leg_id' };

/** A call node whose API listens (the realtime socket), its world, and a session minter. */
async function webWorld(store: StoreKind, termination: string, dial: Record<string, unknown> = DIAL) {
  const n = await startCallNode({ store });
  cleanups.push(() => n.close());
  const w = await telephonyWorld(n, { number: NUMBER, termination, graphs: { web: webDialGraph(dial) } });
  await n.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `ws://127.0.0.1:${(n.app.server.address() as { port: number }).port}`;
  const mint = async () => {
    const r = await n.api('POST', '/sessions', { project_id: w.projectId, workflow_id: w.workflows.web });
    expect(r.status).toBe(201);
    return r.data.data as { id: string; join_token: string };
  };
  return { n, w, base, mint };
}

/** A browser that joins `s` with its offer (voice), as the /join page does. */
async function joinWithVoice(base: string, s: { id: string; join_token: string }) {
  const heard: Int16Array[] = [];
  const browser = new ClientPeer({ onAudio: (pcm) => heard.push(pcm) });
  cleanups.push(() => browser.close());
  const c = realtimeSocket(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}&media=webrtc`, [
    { type: 'webrtc_offer', sdp: await browser.offer() },
  ]);
  cleanups.push(() => c.ws.close());
  const answer = await c.waitFor((f) => f.type === 'webrtc_answer');
  browser.accept(String(answer.sdp));
  trickle(c, browser);
  await browser.connected();
  return { browser, c, heard };
}

async function callRows(n: CallNode) {
  return n.store.db.selectFrom('calls').selectAll().execute();
}

async function legEvents(n: CallNode, legId: string) {
  return (await storedEvents(n)).filter((e: Loose) => e.type.startsWith('call.') && e.data.id === legId);
}

/** The workflow.completed event once stored. */
function workflowCompleted(n: CallNode): Promise<Loose> {
  return eventually(async () => (await storedEvents(n)).find((e: Loose) => e.type === 'workflow.completed'));
}

/** The frame telling that the dial node was left. */
function dialExited(c: RealtimeSocket) {
  return c.waitFor((f) => f.type === 'node' && f.event === 'exited' && f.node_id === 'dial');
}

/** The dial node left by `failed` for `reason` before dialling: no leg was recorded. */
async function failedUndialled(n: CallNode, c: RealtimeSocket, reason: string) {
  expect(await dialExited(c)).toMatchObject({ handle: 'failed' });
  expect((await workflowCompleted(n)).data.variables.dial_failure_reason).toBe(reason);
  expect(await callRows(n)).toEqual([]);
}

describe.each(storeKinds())(
  'e2e: a dial node on a web session bridges the browser to the dialled party ($name)',
  (store) => {
    baresipTest(
      'baresip answers: audio both ways (Opus in the browser, G.711 on the leg), the leg a call of the session, ended when the browser leaves',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'baresip-webdial-'));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        const { baresip, sipPort } = await startBaresipCallee(dir, { user: CALLEE, toneHz: THEIR_TONE_HZ });
        cleanups.push(() => baresip.process.kill());

        const { n, w, base, mint } = await webWorld(store, `sip:127.0.0.1:${sipPort}`);
        const s = await mint();
        const { browser, c, heard } = await joinWithVoice(base, s);
        // The browser speaks its tone from the start; the leg hears it once bridged.
        const speaking = setInterval(() => {
          if (browser.queuedMs < 400) browser.speak(tone(OUR_TONE_HZ, 200));
        }, 100);
        cleanups.push(() => clearInterval(speaking));

        // Bridged: the leg is in progress, and baresip's sine reaches the browser.
        const leg = await eventually(async () => (await callRows(n)).find((r) => r.status === 'in_progress'));
        const from = heard.length;
        await baresip.wait(() => heard.length - from >= 100); // 2 s of the bridge
        const ours = toneShare(concat(...heard.slice(from)), 16000, THEIR_TONE_HZ);
        expect(ours.share, `the browser heard ${ours.loudMs} ms loud`).toBeGreaterThan(0.6);
        expect(ours.loudMs).toBeGreaterThan(1000);

        // The browser leaves: the session ends, the leg is hung up (BYE to baresip).
        browser.close();
        expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({
          end_reason: 'client_disconnected',
        });
        const ended = await eventually(async () => {
          const row = (await callRows(n)).find((r) => r.id === leg.id);
          return row?.ended_at ? row : undefined;
        });
        expect(ended).toMatchObject({
          direction: 'outbound',
          status: 'completed',
          hangup_reason: 'caller_hangup',
          session_id: s.id,
          parent_call_id: null,
          workflow_id: w.workflows.web,
          workflow_version: 1,
          from_number: NUMBER,
          to_number: CALLEE,
          phone_number_id: w.numberId,
          node_id: n.deps.config.nodeId,
        });
        expect(ended.duration_seconds).toBeGreaterThanOrEqual(2);
        const events = await eventually(async () => {
          const e = await legEvents(n, leg.id);
          return e.length === 2 ? e : undefined;
        });
        expect(events.map((e: Loose) => e.type)).toEqual(['call.started', 'call.ended']);
        expect(events[1].data).toMatchObject({ session_id: s.id, parent_call_id: null, status: 'completed' });
        const sessionEnded = await eventually(async () =>
          (await storedEvents(n)).find((e: Loose) => e.type === 'session.ended' && e.data.id === s.id),
        );
        expect(sessionEnded.data).toMatchObject({ end_reason: 'client_disconnected' });
        // The leg's minutes under the trunk's provider; one calls unit.
        const minutes = await eventually(async () => {
          const rows = await n.store.db
            .selectFrom('usage_events')
            .select(['quantity', 'provider'])
            .where('metric', '=', 'voice_minutes')
            .execute();
          return rows.length > 0 ? rows : undefined;
        });
        expect(minutes).toHaveLength(1);
        expect(Number(minutes[0]!.quantity)).toBeCloseTo(ended.duration_seconds! / 60, 5);
        expect((await n.api('GET', `/calls/${leg.id}`)).data.data).toMatchObject({ session_id: s.id });

        // baresip's recording of the call holds the browser's tone.
        await baresip.wait(() => /terminated|Call terminated|closed/i.test(baresip.output.text));
        const theirs = await baresip.heardTone(OUR_TONE_HZ);
        expect(theirs.share, `baresip recorded ${theirs.loudMs} ms loud`).toBeGreaterThan(0.6);
        expect(theirs.loudMs).toBeGreaterThan(1000);
      },
      TIMEOUT,
    );

    sippTest(
      'the dialled party presses keys and hangs up: the browser is shown each key, the workflow goes on by `answered`, the leg completed / callee_hangup',
      async () => {
        const { port, peer } = await callee(peers, 'outbound-answer-keys.xml', { DIGIT: 5 });
        const { n, base, mint } = await webWorld(store, `sip:127.0.0.1:${port}`);
        const s = await mint();
        const { browser, c } = await joinWithVoice(base, s);
        expect(await dialExited(c)).toMatchObject({ handle: 'answered' });
        // The keys it pressed (RFC 4733 from sipp's pcaps), one frame each, in order, naming the leg;
        // the same messages on the browser's data channel.
        const keys = c.frames.filter((f) => f.type === 'dial_dtmf');
        expect(keys.map((f) => f.digits)).toEqual(['5', '#']);
        const legRow = (await callRows(n))[0]!;
        expect(keys).toEqual([
          { type: 'dial_dtmf', digits: '5', call_id: legRow.id },
          { type: 'dial_dtmf', digits: '#', call_id: legRow.id },
        ]);
        await until(() => browser.received.length >= 2);
        expect(browser.received.map((m) => JSON.parse(m))).toEqual(keys);
        expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
        expect((await peer.done).code).toBe(0);
        const done = await workflowCompleted(n);
        expect(done.data.path).toEqual(['start', 'dial', 'back', 'bye']);
        const leg = await eventually(async () => {
          const row = (await callRows(n))[0];
          return row?.ended_at ? row : undefined;
        });
        expect(leg).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup', session_id: s.id });
        expect(done.data.variables.leg_id).toBe(leg.id);
        expect(done.data.variables.dial_failure_reason).toBeUndefined();
      },
      TIMEOUT,
    );

    for (const [file, vars, handle, status, reason] of [
      ['outbound-reject.xml', { STATUS: 486, REASON: 'Busy Here' }, 'busy', 'busy', 'busy'],
      ['outbound-no-answer.xml', {}, 'no_answer', 'no_answer', 'ring_timeout'],
    ] as const) {
      sippTest(
        `${handle}: the node leaves by ${handle}, the leg ${status} / ${reason}, the session goes on`,
        async () => {
          const { port } = await callee(peers, file, vars);
          const { n, base, mint } = await webWorld(store, `sip:127.0.0.1:${port}`, {
            ...DIAL,
            ring_timeout_seconds: 1,
          });
          const s = await mint();
          const { c } = await joinWithVoice(base, s);
          expect(await dialExited(c)).toMatchObject({ handle });
          const done = await workflowCompleted(n);
          expect(done.data.path).toEqual(['start', 'dial', 'nobody', 'bye']);
          expect(done.data.variables.dial_failure_reason).toBe(handle);
          const leg = await eventually(async () => {
            const row = (await callRows(n))[0];
            return row?.ended_at ? row : undefined;
          });
          expect(leg).toMatchObject({
            status,
            hangup_reason: reason,
            session_id: s.id,
            parent_call_id: null,
          });
          expect(done.data.variables.leg_id).toBe(leg.id);
          expect((await legEvents(n, leg.id)).map((e: Loose) => e.type)).toEqual(['call.ended']);
        },
        TIMEOUT,
      );
    }

    it('a web session without audio (typed turns only) leaves by failed with channel_unsupported, nothing dialled', async () => {
      const { n, base, mint } = await webWorld(store, 'sip:127.0.0.1:5999');
      const s = await mint();
      const c = realtimeSocket(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`);
      cleanups.push(() => c.ws.close());
      await failedUndialled(n, c, 'channel_unsupported');
    });

    it('a from that is not a registered number fails the dial before any record', async () => {
      const { n, base, mint } = await webWorld(store, 'sip:127.0.0.1:5999', {
        ...DIAL,
        from: '+14155559999',
      });
      const s = await mint();
      const { c } = await joinWithVoice(base, s);
      await failedUndialled(n, c, 'from_not_registered');
    });
  },
);
