// Browser voice end to end without a browser: a second node-datachannel peer (ClientPeer) joins a
// web session over the realtime socket, as the /join page does, with its offer sent as the socket
// opens. It hears the prompt (Opus, decoded), presses a key on the data channel during it (barge-
// in, the branch taken), and the session's speech is metered. Then the ends (the browser closing
// its peer connection) and the bad input the socket must refuse without losing the session.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TtsProvider, TtsRequest } from '../../src/providers/tts/tts.types.js';
import { systemClock } from '../../src/shared/clock.js';
import { ClientPeer } from '../../src/webrtc/client-peer.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { eventually, realtimeSocket as socket, trickle } from '../support/realtime-socket.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

const graph = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
);

/** Speaks every text as a 440 Hz tone, 40 ms per character, in 100 ms chunks. */
class ToneTts implements TtsProvider {
  readonly id = 'tone_tts';
  readonly texts: string[] = [];
  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    this.texts.push(request.text);
    const total = request.text.length * 40 * 16;
    for (let i = 0; i < total; i += 1600) {
      yield Int16Array.from({ length: Math.min(1600, total - i) }, (_, k) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 440 * (i + k)) / 16000)),
      );
    }
  }
}

function loud(pcm: Int16Array): boolean {
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / pcm.length) > 1500;
}

describe.each(storeKinds())('browser voice (WebRTC) on $name', (kind) => {
  let t: TestApi;
  let base: string;
  let projectId: string;
  let workflowId: string;
  const tts = new ToneTts();
  const peers: ClientPeer[] = [];

  beforeAll(async () => {
    t = await startTestApi(kind, { sessionClock: systemClock, providers: { tts, stt: null } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId, t.key, graph);
  });
  afterAll(async () => {
    for (const p of peers) p.close();
    await t.close();
  });

  const mint = async () =>
    (
      (
        await t.call('POST', '/api/v1/sessions', {
          body: { project_id: projectId, workflow_id: workflowId, variables: { name: 'Ann' } },
        })
      ).data as { data: { id: string; join_token: string } }
    ).data;

  const url = (s: { id: string; join_token: string }) =>
    `${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`;

  /** A browser that joins with its offer, and the frames it heard (arrival order). */
  async function join(s: { id: string; join_token: string }) {
    const heard: Int16Array[] = [];
    const browser = new ClientPeer({ onAudio: (pcm) => heard.push(pcm) });
    peers.push(browser);
    const c = socket(`${url(s)}&media=webrtc`, [{ type: 'webrtc_offer', sdp: await browser.offer() }]);
    const answer = await c.waitFor((f) => f.type === 'webrtc_answer');
    browser.accept(String(answer.sdp));
    trickle(c, browser);
    await browser.connected();
    return { browser, c, heard };
  }

  it('plays the prompt as Opus, takes a key from the data channel during it, and meters the speech', async () => {
    const s = await mint();
    const { browser, c, heard } = await join(s);
    expect(c.frames[0]).toMatchObject({ type: 'ready', ice_servers: [] });
    // The prompt is heard: decoded frames with the tone in them.
    await eventually(async () => (heard.filter(loud).length >= 5 ? true : undefined));
    browser.send(JSON.stringify({ type: 'dtmf', digits: '1' }));
    const exited = await c.waitFor((f) => f.type === 'node' && f.event === 'exited' && f.node_id === 'ask');
    expect(exited).toMatchObject({ handle: 'success' });
    // Barged in: far less than the whole prompt (33 characters, 66 frames) reached the browser.
    expect(heard.filter(loud).length).toBeLessThan(60);
    expect(
      await c.waitFor((f) => f.type === 'assistant_text' && f.text !== 'Press 1 for sales, 2 for support'),
    ).toMatchObject({
      text: 'Connecting you to sales, Ann.',
    });
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
    // The ended frame waited for the end to be stored: read at once, the session is ended.
    expect((await t.call('GET', `/api/v1/sessions/${s.id}`)).data).toMatchObject({
      data: { status: 'ended', end_reason: 'completed' },
    });
    expect(tts.texts).toContain('Connecting you to sales, Ann.');

    const usage = await eventually(async () => {
      const rows = await t.store.db
        .selectFrom('usage_events')
        .select(['metric', 'quantity', 'provider'])
        .where('metric', '=', 'tts_characters')
        .where('provider', '=', 'tone_tts')
        .execute();
      return rows.length > 0 ? rows : undefined;
    });
    expect(usage[0]!.quantity).toBe(
      'Press 1 for sales, 2 for support'.length + 'Connecting you to sales, Ann.'.length,
    );
    c.ws.close();
  });

  it('ends the session with session.ended when the browser closes its peer connection', async () => {
    const s = await mint();
    const { browser, c } = await join(s);
    await c.waitFor((f) => f.type === 'node' && f.event === 'entered' && f.node_id === 'ask');
    browser.close();
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'client_disconnected' });
    const event = await eventually(async () => {
      const rows = await t.store.db.selectFrom('webhook_events').select(['type', 'body']).execute();
      return rows
        .map((r) => JSON.parse(r.body))
        .find((b) => b.type === 'session.ended' && b.data.id === s.id);
    });
    expect(event.data).toMatchObject({ end_reason: 'client_disconnected', status: 'ended' });
  });

  it('refuses bad signalling with error frames and keeps the session usable', async () => {
    const s = await mint();
    const browser = new ClientPeer();
    peers.push(browser);
    const offer = await browser.offer();
    const c = socket(url(s));
    await c.waitFor((f) => f.type === 'ready');
    const next = async (frame: object | string) => {
      const before = c.frames.filter((f) => f.type === 'error').length;
      c.send(frame as object);
      await c.waitFor(() => c.frames.filter((f) => f.type === 'error').length > before);
      return c.frames.filter((f) => f.type === 'error').at(-1)!;
    };
    expect(
      await next({
        type: 'ice_candidate',
        candidate: 'candidate:1 1 UDP 1 127.0.0.1 9 typ host',
        sdp_mid: '0',
      }),
    ).toMatchObject({
      code: 'no_offer',
    });
    expect(await next({ type: 'webrtc_offer', sdp: 'v=0\r\nnonsense' })).toMatchObject({
      code: 'invalid_sdp',
    });
    expect(
      await next({ type: 'webrtc_offer', sdp: offer.replace(/^m=audio (\d+)/m, 'm=audio 0') }),
    ).toMatchObject({
      code: 'no_audio',
    });
    expect(await next({ type: 'webrtc_offer' })).toMatchObject({ code: 'invalid_message' });
    expect(await next({ type: 'video_offer', sdp: offer })).toMatchObject({ code: 'unknown_type' });
    expect(await next({ type: 'user_text', text: 'x'.repeat(70 * 1024) })).toMatchObject({
      code: 'frame_too_large',
    });
    // Still usable: the good offer is answered, and a second one refused.
    c.send({ type: 'webrtc_offer', sdp: offer });
    const answer = await c.waitFor((f) => f.type === 'webrtc_answer');
    expect(await next({ type: 'webrtc_offer', sdp: offer })).toMatchObject({
      code: 'renegotiation_unsupported',
    });
    browser.accept(String(answer.sdp));
    trickle(c, browser);
    await browser.connected();
    c.send({ type: 'dtmf', digits: '2' });
    expect(
      await c.waitFor((f) => f.type === 'assistant_text' && String(f.text).startsWith('You chose')),
    ).toMatchObject({
      text: 'You chose 2.',
    });
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
    c.ws.close();
  });

  it('answers a token for an ended session with an error frame', async () => {
    const s = await mint();
    expect((await t.call('DELETE', `/api/v1/sessions/${s.id}`)).statusCode).toBe(204);
    const c = socket(url(s));
    expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'session_ended' });
    c.ws.close();
  });
});
