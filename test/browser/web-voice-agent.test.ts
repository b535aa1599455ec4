// An agent node on a browser call, in Debian's chromium through the /join page, against a real
// `switchboard serve` whose model is a local OpenAI-protocol server (the repository's fake LLM
// server, over HTTP) and whose recogniser is the embedded one. The fake microphone plays an
// espeak-ng WAV in a loop: six seconds of silence, "yes", six seconds of silence. So:
//
//   greeting plays ─► "yes" (6 s) ─► the model answers at length (about 30 s of speech) ─► "yes"
//   again (19.5 s), some way into the answer ─► playback stops (what the browser had received
//   when the barge-in was announced is far short of the answer's length) and the transcript marks
//   the answer as interrupted (on the page, in the realtime frames and in the stored
//   conversation), the words not heard greyed out: the service's estimate of the share heard
//   within a tenth of the share of the answer's frames the browser received ─► the model,
//   asked with the turn that barged in, takes the agent's `done` exit ─► the workflow ends ─► a
//   signed `session.ended` webhook with end_reason `completed` reaches the customer's endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/events/verify-webhook.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-servers/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { buildAll, chromiumPath, openBrowser, startServer, type Browser, type Server } from './support.js';
import { durationMs, espeak, fakeMicrophoneFlags, micWav, nodeAudio, watchNodeAudio } from './microphone.js';

const executable = chromiumPath();
const journey = executable !== null || process.env.CI ? describe : describe.skip;

const ANSWER =
  'We are open from nine in the morning until five in the evening, Monday to Friday, and from ten ' +
  'until two on Saturdays. On public holidays the front desk is closed, but you can always leave ' +
  'a message and somebody from the team will call you back on the next working day. If you would ' +
  'like to visit us, the office is on the second floor, above the bakery on the market square, ' +
  'and there is parking behind the building. Please bring a photo identity card with you, as the ' +
  'reception needs it to give you a visitor badge.';

journey('an agent on a browser call, with barge-in (chromium, fake LLM server)', () => {
  let server: Server;
  let browser: Browser;
  let llm: FakeLlmServer;
  let hooks: Receiver;
  let project = '';
  let workflow = '';
  let secret = '';

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    if (!process.env.SB_NO_BUILD) await buildAll();
    llm = await startFakeLlmServer('openai');
    hooks = await startReceiver();
    server = await startServer({
      WEBRTC_HOST: '127.0.0.1',
      LLM_VENDOR_1_BASE_URL: llm.baseUrl,
      LLM_VENDOR_1_API_KEY: 'sk-fake',
    });
    const p = await server.api<{ data: { id: string } }>('POST', '/projects', { name: 'Agent' });
    project = p.body.data.id;
    const agent = await server.api<{ data: { id: string } }>('POST', '/agents', {
      project_id: project,
      name: 'Front desk',
      system_prompt: 'Answer questions about opening hours.',
      llm_provider: 'llm_vendor_1',
      llm_model: 'gpt-fake',
    });
    expect(agent.status).toBe(201);
    const w = await server.api<{ data: { id: string } }>('POST', '/workflows', {
      project_id: project,
      name: 'Opening hours',
      graph: {
        nodes: [
          { id: 'start', type: 'start', config: {} },
          {
            id: 'desk',
            type: 'agent',
            config: {
              agent_id: agent.body.data.id,
              greeting: 'Hello, front desk.',
              exits: [{ handle: 'done', description: 'the caller has what they need' }],
              silence_timeout_seconds: 60,
            },
          },
          { id: 'bye', type: 'end', config: {} },
        ],
        edges: [
          { source: 'start', target: 'desk' },
          { source: 'desk', source_handle: 'done', target: 'bye' },
          { source: 'desk', source_handle: 'default', target: 'bye' },
        ],
      },
    });
    expect(w.status).toBe(201);
    workflow = w.body.data.id;
    expect((await server.api('POST', `/workflows/${workflow}/publish`)).status).toBe(200);
    const hook = await server.api<{ data: { secret: string } }>('POST', '/webhook-endpoints', {
      project_id: project,
      url: hooks.url,
      events: ['session.ended'],
    });
    expect(hook.status).toBe(201);
    secret = hook.body.data.secret;
    browser = await openBrowser(
      executable,
      'web-voice-agent',
      fakeMicrophoneFlags(micWav(espeak('yes'), 6000)),
    );
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
    // The packets received when the assistant_interrupted frame arrives.
    await watchNodeAudio(browser.page);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
    await hooks?.close();
  });

  it('answers a spoken turn by voice, stops when spoken over, and ends with a signed session.ended', async () => {
    const { page } = browser;
    // The model: the first turn gets the long answer; the turn that barged in gets the exit.
    llm.reply({ text: [ANSWER] });
    llm.reply({ toolCalls: [{ id: 'call_1', name: 'done', arguments: '{}' }] });
    const answerMs = durationMs(espeak(ANSWER));
    const inbound = async (): Promise<number> =>
      (await page.evaluate(`(async () => {
        for (const pc of window.__sbPeers ?? []) {
          for (const r of (await pc.getStats()).values()) {
            if (r.type === 'inbound-rtp' && r.kind === 'audio') return r.packetsReceived ?? 0;
          }
        }
        return 0;
      })()`)) as number;
    /** Waits until the browser has received no packet for a second (the service's sender idles). */
    const quiet = async (): Promise<number> => {
      let last = await inbound();
      for (let still = 0; still < 4;) {
        await page.waitForTimeout(250);
        const now = await inbound();
        still = now === last ? still + 1 : 0;
        last = now;
      }
      return last;
    };

    const s = await server.api<{ data: { id: string; join_url: string } }>('POST', '/sessions', {
      project_id: project,
      workflow_id: workflow,
    });
    const sessionId = s.body.data.id;
    await page.goto(s.body.data.join_url);
    await page.getByRole('button', { name: 'Start call' }).click();
    await page.getByText('Connected: speak any time.').waitFor();
    await page.getByText('Hello, front desk.').waitFor();
    // The greeting is heard (about 75 packets), then the line idles.
    for (let i = 0; i < 200 && (await inbound()) < 50; i++) await page.waitForTimeout(100);
    const afterGreeting = await quiet();
    expect(afterGreeting).toBeGreaterThanOrEqual(50);

    // The microphone's "yes" is a turn; the model's answer is spoken, and heard as it plays.
    await page.getByText(ANSWER).waitFor({ timeout: 60_000 });
    for (let i = 0; i < 200 && (await inbound()) < afterGreeting + 50; i++) await page.waitForTimeout(100);
    expect(await inbound()).toBeGreaterThanOrEqual(afterGreeting + 50); // a second of it arrived

    // The next "yes" speaks over it: the page marks the answer as cut short, and its audio stops.
    // (The greeting's line, then the answer's: once split into heard and not heard, the answer's
    // line no longer holds its text in one piece.)
    const cut = page.locator('li.assistant').nth(1);
    await cut.getByText('(interrupted)').waitFor({ timeout: 60_000 });
    // What the browser had received of the answer when the service announced the barge-in (the
    // call ends soon after, taking its stats with it): well short of its length.
    let interrupted = (await nodeAudio(page)).find((m) => m.type === 'assistant_interrupted');
    for (let i = 0; i < 20 && interrupted?.packets === null; i++) {
      await page.waitForTimeout(100); // getStats() still answering
      interrupted = (await nodeAudio(page)).find((m) => m.type === 'assistant_interrupted');
    }
    const answerFrames = answerMs / 20;
    const received = interrupted!.packets! - afterGreeting;
    expect(received).toBeGreaterThanOrEqual(50);
    expect(received).toBeLessThan(answerFrames * 0.6);
    // The words not heard are greyed out and read out as such; what stays plain is what played
    // (the service's estimate: the share of the audio it sent, cut back to a whole word).
    // The plain words: the line's own text nodes (the unheard rest is in a span of its own).
    const heardText = (await page.evaluate(`(() => {
      const li = document.querySelectorAll('li.assistant')[1];
      return [...li.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
    })()`)) as string;
    expect(heardText.length).toBeGreaterThan(0);
    expect(ANSWER.startsWith(heardText)).toBe(true);
    expect(await cut.locator('.unheard').textContent()).toBe(` Not heard: ${ANSWER.slice(heardText.length)}`);
    // The estimate agrees with the share of the answer's 20 ms frames the browser had received,
    // within a tenth of the answer.
    const [heardShare, receivedShare] = [heardText.length / ANSWER.length, received / answerFrames];
    console.log(
      `heard ${heardText.length} of ${ANSWER.length} characters (${heardShare.toFixed(2)}); the browser ` +
        `had received ${received} of the answer's ${Math.round(answerFrames)} frames (${receivedShare.toFixed(2)})`,
    );
    expect(Math.abs(heardShare - receivedShare)).toBeLessThan(0.1);
    await browser.shot('agent-interrupted');

    // The barge-in was a turn of its own: the model got it, took the exit, and the session ended.
    await page.getByText('Call ended. You can close this page.').waitFor({ timeout: 60_000 });
    expect(llm.requests).toHaveLength(2);
    const asked = llm.requests[1]!.body as { messages: { role: string; content: string | null }[] };
    expect(asked.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain(ANSWER);
    expect(asked.messages.at(-1)?.role).toBe('user');

    await hooks.waitFor(1);
    const delivery = hooks.received.find((r) => r.body.includes(sessionId))!;
    const event = verifyWebhook<{ id: string; end_reason: string; status: string }>(
      delivery.body,
      delivery.headers,
      secret,
    );
    expect(event.type).toBe('session.ended');
    expect(event.data).toMatchObject({ id: sessionId, status: 'ended', end_reason: 'completed' });

    // The stored transcript: both turns, and the answer marked as interrupted.
    const conv = await server.api<{ data: { id: string }[] }>(
      'GET',
      `/conversations?session_id=${sessionId}`,
    );
    const full = await server.api<{
      data: {
        messages: { role: string; content: string; interrupted: boolean; heard_chars: number | null }[];
      };
    }>('GET', `/conversations/${conv.body.data[0]!.id}`);
    const messages = full.body.data.messages.map((m) => [m.role, m.interrupted]);
    expect(messages).toEqual([
      ['assistant', false],
      ['user', false],
      ['assistant', true],
      ['user', false],
    ]);
    expect(full.body.data.messages[2]!.content).toBe(ANSWER);
    expect(full.body.data.messages[2]!.heard_chars).toBe(heardText.length);
    expect(browser.problems).toEqual([]);
  }, 180_000);
});
