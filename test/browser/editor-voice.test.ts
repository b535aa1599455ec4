// "Talk to it" in the workflow editor by voice, in Debian's chromium with a fake microphone (an
// espeak-ng WAV), against a real `switchboard serve`: the panel calls the latest published version
// over WebRTC, the workflow's words arrive in the transcript, the step it is on lights up on the
// canvas, a key typed in the panel routes the branch, and the session ends on the server.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildAll,
  chromiumPath,
  openBrowser,
  seriousViolations,
  startServer,
  type Browser,
  type Server,
} from './support.js';
import { espeak, fakeMicrophoneFlags, micWav } from './microphone.js';

const executable = chromiumPath();
const haveEspeak = spawnSync('espeak-ng', ['--version']).status === 0;
const journey = (executable !== null && haveEspeak) || process.env.CI ? describe : describe.skip;

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {}, position: { x: 0, y: 0 } },
    {
      id: 'hello',
      type: 'speak',
      config: { text: 'Welcome to the front desk.' },
      position: { x: 0, y: 140 },
    },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Press 1 for sales.',
        num_digits: 1,
        timeout_seconds: 60,
        save_to_variable: 'choice',
      },
      position: { x: 0, y: 280 },
    },
    { id: 'sales', type: 'speak', config: { text: 'Connecting you to sales.' }, position: { x: 0, y: 420 } },
    { id: 'bye', type: 'end', config: {}, position: { x: 0, y: 560 } },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'sales' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
    { source: 'sales', target: 'bye' },
  ],
};

journey('Talk to it by voice in the editor (chromium, fake microphone)', () => {
  let server: Server;
  let browser: Browser;
  let workflow = '';

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium); CI needs it');
    if (!haveEspeak) throw new Error('espeak-ng is not installed (apt-get install espeak-ng); CI needs it');
    await buildAll();
    server = await startServer({ WEBRTC_HOST: '127.0.0.1' });
    const p = await server.api<{ data: { id: string } }>('POST', '/projects', { name: 'Front desk' });
    const w = await server.api<{ data: { id: string } }>('POST', '/workflows', {
      project_id: p.body.data.id,
      name: 'Reception',
      graph: GRAPH,
    });
    workflow = w.body.data.id;
    expect((await server.api('POST', `/workflows/${workflow}/publish`)).status).toBe(200);
    browser = await openBrowser(executable, 'editor-voice', fakeMicrophoneFlags(micWav(espeak('hello'))));
    await browser.page.goto(server.signInLink);
    await browser.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('calls the published version from the editor, hears it, presses a key, and hangs up', async () => {
    const page = browser.page;
    await page.goto(`${server.base}/workflows/${workflow}`);
    await page.getByRole('heading', { level: 1, name: 'Reception' }).waitFor();
    const panel = page.getByRole('complementary', { name: 'Editor panel' });
    await panel.getByRole('button', { name: 'Talk to it', exact: true }).click();
    // Voice is the first way offered where the browser has a microphone.
    expect(await panel.getByLabel(/^Voice/).isChecked()).toBe(true);
    await panel.getByRole('button', { name: 'Start a conversation' }).click();

    const conversation = panel.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('Welcome to the front desk.').waitFor({ timeout: 30_000 });
    await conversation.getByText('Press 1 for sales.').waitFor({ timeout: 30_000 });
    // The step the call is on is lit on the canvas.
    await page.locator('.react-flow__node.is-live[data-id="ask"]').waitFor();
    await browser.shot('editor-talk-voice');

    await panel.getByLabel('Keys to press').fill('dtmf:1');
    await panel.getByRole('button', { name: 'Send' }).click();
    await conversation.getByText('Connecting you to sales.').waitFor({ timeout: 30_000 });
    await conversation.getByText(/Session ended/).waitFor({ timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
    expect(browser.problems).toEqual([]);

    const sessions = await server.api<{
      data: Array<{ channel: string; status: string; end_reason: string }>;
    }>('GET', '/sessions');
    expect(sessions.body.data).toEqual([expect.objectContaining({ channel: 'web', status: 'ended' })]);
  }, 120_000);
});
