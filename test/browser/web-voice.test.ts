// A browser call through the /join page in Debian's chromium, with a fake microphone playing an
// espeak-ng WAV, against a real `switchboard serve`: the page hears the workflow (inbound RTP
// packets and an audio level in getStats), a keypad press routes the branch, the transcript shows
// both sides, and hang-up ends the session (client_ended). The greeting, played the moment the call
// is up, arrives whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { durationMs, espeak, fakeMicrophoneFlags, micWav, nodeAudio, watchNodeAudio } from './microphone.js';

const executable = chromiumPath();
const journey = executable !== null || process.env.CI ? describe : describe.skip;

const GREETING = 'Welcome to the front desk. Every word of this greeting should reach you.';
const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    // Not cut short by the microphone's "hello": the whole greeting is played.
    { id: 'hello', type: 'speak', config: { text: GREETING, barge_in: false } },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Press 1 for sales.',
        num_digits: 1,
        timeout_seconds: 60,
        save_to_variable: 'choice',
      },
    },
    {
      id: 'route',
      type: 'condition',
      config: { branches: [{ handle: 'sales', expression: "choice == '1'" }] },
    },
    { id: 'sales', type: 'speak', config: { text: 'Connecting you to sales.' } },
    { id: 'other', type: 'speak', config: { text: 'Goodbye.' } },
    {
      id: 'hold',
      type: 'dtmf',
      config: { prompt: 'Please hold.', num_digits: 1, timeout_seconds: 120, save_to_variable: 'x' },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'other' },
    { source: 'route', source_handle: 'sales', target: 'sales' },
    { source: 'route', target: 'other' },
    { source: 'sales', target: 'hold' },
    { source: 'other', target: 'bye' },
    { source: 'hold', source_handle: 'success', target: 'bye' },
    { source: 'hold', source_handle: 'timeout', target: 'bye' },
  ],
};

journey('a browser call through /join (chromium, fake microphone)', () => {
  let server: Server;
  let browser: Browser;
  let ids: Published;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    await buildAll();
    server = await startServer({ WEBRTC_HOST: '127.0.0.1' });
    ids = await publishedWorkflow(server, { project: 'Web', workflow: 'Front desk' }, GRAPH);
    browser = await openBrowser(executable, 'web-voice', fakeMicrophoneFlags(micWav(espeak('hello'))));
    await browser.page.setViewportSize({ width: 520, height: 900 });
    // Keeps every peer connection the page makes, for getStats() (added by the DevTools protocol,
    // which the page's CSP does not govern).
    await browser.page.addInitScript({
      content: `{
        const Original = window.RTCPeerConnection;
        const peers = (window.__sbPeers = []);
        window.RTCPeerConnection = class extends Original {
          constructor(config) { super(config); peers.push(this); }
        };
      }`,
    });
    await watchNodeAudio(browser.page);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('hears the workflow, routes a keypad press, shows both sides and hangs up', async () => {
    const { page } = browser;
    const sessionId = await joinCall(page, server, ids);
    await page.getByText('Press 1 for sales.').waitFor();

    // The prompt's audio arrives: packets in and a level above silence.
    const inbound = () =>
      page.evaluate(`(async () => {
        for (const pc of window.__sbPeers ?? []) {
          for (const r of (await pc.getStats()).values()) {
            if (r.type === 'inbound-rtp' && r.kind === 'audio') {
              return { packets: r.packetsReceived ?? 0, level: r.audioLevel ?? 0 };
            }
          }
        }
        return { packets: 0, level: 0 };
      })()`) as Promise<{ packets: number; level: number }>;
    let stats = await inbound();
    let loudest = stats.level;
    for (let i = 0; i < 80 && !(stats.packets > 20 && loudest > 0.01); i++) {
      await page.waitForTimeout(250);
      stats = await inbound();
      loudest = Math.max(loudest, stats.level);
    }
    expect(loudest).toBeGreaterThan(0.01);
    expect(stats.packets).toBeGreaterThan(20);
    // The whole greeting had arrived when the keypad node started (its prompt comes after that).
    const frames = Math.floor(durationMs(espeak(GREETING)) / 20);
    const asked = (await nodeAudio(page)).find((m) => m.node === 'ask' && m.event === 'entered');
    console.log(`chromium received ${asked?.packets} packets of a ${frames}-frame greeting`);
    expect(asked?.packets).toBeGreaterThanOrEqual(Math.ceil(frames * 0.9));

    await page.getByRole('button', { name: 'Keypad' }).click();
    await page.getByRole('button', { name: 'Key 1' }).click();
    await page.getByText('Connecting you to sales.').waitFor();
    await page.getByText('You pressed 1').waitFor();
    await browser.shot('join-in-call');

    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.getByText('Call ended. You can close this page.').waitFor();
    // The session's end is written as the socket's last frame goes out: read until it shows.
    let ended = { status: '', end_reason: '' };
    for (let i = 0; i < 40 && ended.status !== 'ended'; i++) {
      ended = (await server.api<{ data: typeof ended }>('GET', `/sessions/${sessionId}`)).body.data;
      if (ended.status !== 'ended') await page.waitForTimeout(250);
    }
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'client_ended' });
    expect(browser.problems).toEqual([]);
  }, 90_000);
});
