// A browser that may only use relay candidates (iceTransportPolicy 'relay', as behind a strict
// firewall) reaches a web session through TURN: Debian's coturn on loopback, named in
// WEBRTC_ICE_SERVERS, handed to the browser in the `ready` frame. The Node browser stand-in
// gathers relay candidates only (on coturn's relay address, allocated with the credential the
// ready frame handed out), hears the prompt and presses a key. libdatachannel's 'relay' policy filters
// the candidates it offers but still checks from its own host socket, so on one machine the pair
// it settles on may be direct: this proves the configuration and the allocation, and Chromium,
// which enforces the policy, is what proves media through the relay.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IceServer } from '../../src/channels/web-media.js';
import type { TtsProvider, TtsRequest } from '../../src/providers/tts/tts.types.js';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/shared/clock.js';
import { ClientPeer } from '../../src/webrtc/client-peer.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { haveTurnserver, startCoturn, type Coturn } from '../support/coturn.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { eventually, realtimeSocket, trickle } from '../support/realtime-socket.js';
import { storeKinds } from '../support/stores.js';

// The relay is the point of the test: under CI a missing coturn fails it (.ci/run installs it).
const peerDescribe = haveTurnserver() || process.env.CI ? describe : describe.skip;

const graph = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
);

class ToneTts implements TtsProvider {
  readonly id = 'tone_tts';
  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    const total = request.text.length * 40 * 16;
    for (let i = 0; i < total; i += 1600) {
      yield Int16Array.from({ length: Math.min(1600, total - i) }, (_, k) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 440 * (i + k)) / 16000)),
      );
    }
  }
}

const loud = (pcm: Int16Array): boolean =>
  Math.sqrt(pcm.reduce((sum, s) => sum + s * s, 0) / pcm.length) > 1500;

peerDescribe('browser voice through a TURN relay (coturn)', () => {
  let turn: Coturn;
  let t: TestApi;
  let base: string;
  let projectId: string;
  let workflowId: string;
  const peers: ClientPeer[] = [];

  beforeAll(async () => {
    turn = await startCoturn();
    const env = { WEBRTC_HOST: '127.0.0.1', WEBRTC_ICE_SERVERS: JSON.stringify([turn.iceServer]) };
    t = await startTestApi(storeKinds()[0]!, {
      sessionClock: systemClock,
      providers: { tts: new ToneTts(), stt: null },
      config: { webrtc: loadConfig(env).webrtc },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId, t.key, graph);
  });
  afterAll(async () => {
    for (const p of peers) p.close();
    await t?.close();
    await turn?.stop();
  });

  it('connects relay-only on the ICE servers of the ready frame, hears the prompt and routes a key', async () => {
    const minted = await t.call('POST', '/api/v1/sessions', {
      body: { project_id: projectId, workflow_id: workflowId, variables: { name: 'Ann' } },
    });
    const s = (minted.data as { data: { id: string; join_token: string } }).data;
    const c = realtimeSocket(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}&media=webrtc`);
    const ready = await c.waitFor((f) => f.type === 'ready');
    expect(ready.ice_servers).toEqual([turn.iceServer]);

    const heard: Int16Array[] = [];
    const browser = new ClientPeer({
      iceServers: ready.ice_servers as IceServer[],
      relayOnly: true,
      onAudio: (pcm) => heard.push(pcm),
    });
    peers.push(browser);
    c.send({ type: 'webrtc_offer', sdp: await browser.offer() });
    // Relay candidates only, on coturn's relay address.
    const candidates = browser.candidates();
    expect(candidates.length).toBeGreaterThan(0);
    for (const cand of candidates) {
      expect(cand).toMatch(/ 127\.0\.0\.1 \d+ typ relay /);
      // From the block claimed for this coturn, outside the ports the kernel hands out.
      const port = Number(/ (\d+) typ relay /.exec(cand)![1]);
      expect(port).toBeGreaterThanOrEqual(turn.relayPorts.min);
      expect(port).toBeLessThanOrEqual(turn.relayPorts.max);
    }
    browser.accept(String((await c.waitFor((f) => f.type === 'webrtc_answer')).sdp));
    trickle(c, browser);
    await browser.connected();
    // coturn allocated the stand-in's relay with the credential the ready frame handed out.
    expect(turn.log()).toMatch(/ALLOCATE processed, success/);

    // The prompt arrives through the relay, and a key sent through it routes the branch.
    await eventually(async () => (heard.filter(loud).length >= 5 ? true : undefined));
    browser.send(JSON.stringify({ type: 'dtmf', digits: '2' }));
    expect(
      await c.waitFor((f) => f.type === 'assistant_text' && String(f.text).startsWith('You chose')),
    ).toMatchObject({ text: 'You chose 2.' });
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
    c.ws.close();
  }, 60_000);
});
