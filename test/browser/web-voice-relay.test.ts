// Chromium on the /join page, restricted to relay candidates, speaking to the workflow: the
// browser reaches the service only through Debian's coturn on loopback (WEBRTC_ICE_SERVERS, from
// the `ready` frame), its fake microphone says "yes" (an espeak-ng WAV, played in a loop), the
// embedded recogniser hears it at the keypad node, and the branch for yes is taken. (Said "one",
// the recogniser heard "no" through Chromium's processed Opus in one run.) getStats()
// shows the pair the media took: a relay candidate on the browser's side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveTurnserver, startCoturn, type Coturn } from '../support/coturn.js';
import {
  buildAll,
  chromiumPath,
  openBrowser,
  startServer,
  type Browser,
  type Server,
  joinCall,
  publishedWorkflow,
  type Published,
} from './support.js';
import { espeak, fakeMicrophoneFlags, forceRelayOnly, micWav } from './microphone.js';

const executable = chromiumPath();
const journey = (executable !== null && haveTurnserver()) || process.env.CI ? describe : describe.skip;

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Say yes for sales.',
        num_digits: 1,
        timeout_seconds: 60,
        save_to_variable: 'choice',
      },
    },
    {
      id: 'route',
      type: 'condition',
      config: { branches: [{ handle: 'sales', expression: "choice == 'yes'" }] },
    },
    { id: 'sales', type: 'speak', config: { text: 'Connecting you to sales.' } },
    { id: 'other', type: 'speak', config: { text: 'Goodbye.' } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'other' },
    { source: 'route', source_handle: 'sales', target: 'sales' },
    { source: 'route', target: 'other' },
    { source: 'sales', target: 'bye' },
    { source: 'other', target: 'bye' },
  ],
};

journey('a spoken answer from chromium through a TURN relay (coturn)', () => {
  let turn: Coturn;
  let server: Server;
  let browser: Browser;
  let ids: Published;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    if (!haveTurnserver()) throw new Error('coturn is not installed (apt-get install coturn)');
    await buildAll();
    turn = await startCoturn();
    server = await startServer({
      WEBRTC_HOST: '127.0.0.1',
      WEBRTC_ICE_SERVERS: JSON.stringify([turn.iceServer]),
    });
    ids = await publishedWorkflow(server, { project: 'Relay', workflow: 'Spoken menu' }, GRAPH);
    browser = await openBrowser(
      executable,
      'web-voice-relay',
      fakeMicrophoneFlags(micWav(espeak('yes'), 1500)),
    );
    await browser.page.setViewportSize({ width: 520, height: 900 });
    await forceRelayOnly(browser.page);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await turn?.stop();
  });

  it('connects through the relay, and a spoken "yes" routes the keypad node', async () => {
    const { page } = browser;
    const sessionId = await joinCall(page, server, ids);
    await page.getByText('Say yes for sales.').waitFor();
    // The pair the media runs on: the browser's side is a relay candidate.
    const pair = (await page.evaluate(`(async () => {
      for (const pc of window.__sbPeers ?? []) {
        const stats = [...(await pc.getStats()).values()];
        const transport = stats.find((r) => r.type === 'transport' && r.selectedCandidatePairId);
        const selected = stats.find((r) => r.id === transport?.selectedCandidatePairId);
        const local = stats.find((r) => r.id === selected?.localCandidateId);
        const inbound = stats.find((r) => r.type === 'inbound-rtp' && r.kind === 'audio');
        if (local) return { local: local.candidateType, packets: inbound?.packetsReceived ?? 0 };
      }
      return null;
    })()`)) as { local: string; packets: number } | null;
    expect(pair).toMatchObject({ local: 'relay' });
    expect(pair!.packets).toBeGreaterThan(0);
    expect(turn.log()).toMatch(/ALLOCATE processed, success/);
    expect(turn.log()).toMatch(/CREATE_PERMISSION processed, success|CHANNEL_BIND processed, success/);

    await page
      .getByText('Connecting you to sales.')
      .waitFor({ timeout: 60_000 })
      .catch(async (err: unknown) => {
        // What the page showed and what the browser sent, to tell a missed word from missing audio.
        const shot = await browser.shot('relay-not-routed');
        const sent = await page.evaluate(`(async () => {
          const out = [];
          for (const pc of window.__sbPeers ?? [])
            for (const r of (await pc.getStats()).values())
              if (r.type === 'outbound-rtp' || r.type === 'local-candidate') out.push([r.type, r.packetsSent, r.candidateType]);
          return out;
        })()`);
        console.log(shot, JSON.stringify(sent), (await page.textContent('body'))?.slice(0, 800));
        throw err;
      });
    await browser.shot('relay-spoken-digit');

    await page.getByText('Call ended').first().waitFor({ timeout: 30_000 });
    // The ended frame waits for the stored end: read once, the session is ended.
    const ended = await server.api<{ data: { status: string; end_reason: string } }>(
      'GET',
      `/sessions/${sessionId}`,
    );
    expect(ended.body.data).toMatchObject({ status: 'ended', end_reason: 'completed' });
    expect(browser.problems).toEqual([]);
  }, 120_000);
});
