// A `dial` node on a browser voice session, in Debian's chromium against a real `switchboard
// serve`: the page joins with `joinCall` (switchboard/web, as served) and a fake microphone playing
// a 700 Hz tone (WAV); the workflow dials baresip through the trunk of its `from` number; baresip
// answers with a 440 Hz sine and records what it decodes. The browser hears baresip's tone (its
// decoded Opus, read from the remote track with an AnalyserNode), baresip's recording holds the
// browser's tone, and hanging up in the browser ends the session and the leg (call.ended). And on
// the /join page itself: a sipp callee presses 5 and # (RFC 4733, Debian's pcaps) and the page
// shows each key ("The other party pressed 5"), then hangs up and the call ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBaresipCallee, toneShare, type RunningBaresip } from '../support/baresip.js';
import { have } from '../support/media-harness.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
import { buildAll, chromiumPath, openBrowser, startServer, type Browser, type Server } from './support.js';
import { fakeMicrophoneFlags, micWav, toneSpeech } from './microphone.js';

const executable = chromiumPath();
const journey =
  (executable !== null && have('baresip') && have('openssl')) || process.env.CI ? describe : describe.skip;
const sippJourney = haveSipp() || process.env.CI ? it : it.skip;

const OUR_TONE_HZ = 700;
const THEIR_TONE_HZ = 440;
const NUMBER = '+14155550240';
const CALLEE = '+15551230000';
/** The number the keypad journey dials from (a trunk to the sipp callee). */
const KEYS_NUMBER = '+14155550241';

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'dial', type: 'dial', config: { to: CALLEE, from: NUMBER, ring_timeout_seconds: 20 } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'dial' },
    { source: 'dial', source_handle: 'answered', target: 'bye' },
    { source: 'dial', source_handle: 'no_answer', target: 'bye' },
    { source: 'dial', source_handle: 'busy', target: 'bye' },
    { source: 'dial', source_handle: 'failed', target: 'bye' },
  ],
};

journey('a dial node on a browser voice session (chromium, baresip answering)', () => {
  let server: Server;
  let browser: Browser;
  let dir = '';
  let baresip: RunningBaresip | null = null;
  let sipPort = 0;
  let keysCallee: Peer | null = null;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-webdial-'));
    const callee = await startBaresipCallee(dir, { user: CALLEE, toneHz: THEIR_TONE_HZ });
    baresip = callee.baresip;
    sipPort = callee.sipPort;
    await buildAll();
    server = await startServer({ WEBRTC_HOST: '127.0.0.1' });
    browser = await openBrowser(
      executable,
      'web-dial',
      fakeMicrophoneFlags(micWav(toneSpeech(OUR_TONE_HZ, 4))),
    );
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    baresip?.process.kill();
    keysCallee?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the browser and baresip hear each other; hanging up ends the session and the leg', async () => {
    const must = async <T>(r: Promise<{ status: number; body: T }>, status: number) => {
      const res = await r;
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      return res.body;
    };
    type Id = { data: { id: string } };
    const project = (await must(server.api<Id>('POST', '/projects', { name: 'Web dial' }), 201)).data.id;
    const wf = (
      await must(
        server.api<Id>('POST', '/workflows', { project_id: project, name: 'Dialler', graph: GRAPH }),
        201,
      )
    ).data.id;
    await must(server.api('POST', `/workflows/${wf}/publish`), 200);
    const trunk = (
      await must(
        server.api<Id>('POST', '/sip-trunks', {
          name: 'baresip',
          provider: 'generic',
          termination_uri: `sip:127.0.0.1:${sipPort}`,
          auth_username: 'switchboard',
          auth_password: 'baresip-secret-1',
          transport: 'udp',
        }),
        201,
      )
    ).data.id;
    await must(
      server.api('POST', '/phone-numbers', { number: NUMBER, sip_trunk_id: trunk, project_id: project }),
      201,
    );
    const session = (
      await must(
        server.api<{ data: { id: string; join_token: string } }>('POST', '/sessions', {
          project_id: project,
          workflow_id: wf,
        }),
        201,
      )
    ).data;

    const { page } = browser;
    await page.goto(`${server.base}/join`);
    // Joined as switchboard/web does for any page, without the microphone's processing (a steady
    // tone is what noise suppression removes), and a tap on what the browser hears.
    await page.evaluate(
      `(async () => {
        const { joinCall } = await import('/web-voice/switchboard-web.js');
        const call = await joinCall({
          token: ${JSON.stringify(session.join_token)},
          audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
        });
        window.__sbCall = call;
        window.__sbEnded = null;
        call.on('ended', (e) => (window.__sbEnded = e.reason));
        const track = call.peerConnection.getReceivers().find((r) => r.track.kind === 'audio').track;
        const ctx = new AudioContext({ sampleRate: 48000 });
        const analyser = ctx.createAnalyser();
        analyser.fftSize = 2048;
        ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
        window.__sbHeard = [];
        window.__sbTap = setInterval(() => {
          const block = new Float32Array(analyser.fftSize);
          analyser.getFloatTimeDomainData(block);
          window.__sbHeard.push(Array.from(block, (x) => Math.round(x * 32767)));
        }, 50);
      })()`,
    );

    // The leg is answered and bridged: baresip's sine reaches the browser.
    let leg: { id: string; status: string; session_id: string } | undefined;
    for (let i = 0; i < 200 && !leg; i++) {
      const calls = await server.api<{ data: { id: string; status: string; session_id: string }[] }>(
        'GET',
        '/calls',
      );
      leg = calls.body.data.find((c) => c.status === 'in_progress');
      if (!leg) await page.waitForTimeout(200);
    }
    if (!leg) throw new Error(`the leg never answered; baresip said:\n${baresip!.output.text.slice(-3000)}`);
    expect(leg.session_id).toBe(session.id);
    await page.evaluate('window.__sbHeard = []');
    await page.waitForTimeout(3000);
    const blocks = (await page.evaluate('window.__sbHeard')) as number[][];
    const heard = Int16Array.from(blocks.flat());
    const ours = toneShare(heard, 48000, THEIR_TONE_HZ);
    expect(ours.share, `the browser heard ${ours.loudMs} ms loud`).toBeGreaterThan(0.6);
    expect(ours.loudMs).toBeGreaterThan(500);

    // Hang up in the browser: the session ends, the leg is hung up.
    await page.evaluate('(async () => { clearInterval(window.__sbTap); await window.__sbCall.hangUp(); })()');
    let ended = { status: '', end_reason: '' };
    for (let i = 0; i < 80 && ended.status !== 'ended'; i++) {
      ended = (await server.api<{ data: typeof ended }>('GET', `/sessions/${session.id}`)).body.data;
      if (ended.status !== 'ended') await page.waitForTimeout(250);
    }
    expect(ended).toMatchObject({ status: 'ended', end_reason: 'client_ended' });
    let call = { status: '', hangup_reason: '', duration_seconds: 0 };
    for (let i = 0; i < 80 && call.status !== 'completed'; i++) {
      call = (await server.api<{ data: typeof call }>('GET', `/calls/${leg.id}`)).body.data;
      if (call.status !== 'completed') await page.waitForTimeout(250);
    }
    expect(call).toMatchObject({ status: 'completed', hangup_reason: 'caller_hangup' });
    expect(call.duration_seconds).toBeGreaterThanOrEqual(3);

    // baresip's recording of the call holds the browser's tone.
    await baresip!.wait(() => /terminated|closed/i.test(baresip!.output.text));
    const theirs = await baresip!.heardTone(OUR_TONE_HZ);
    baresip = null;
    expect(theirs.share, `baresip recorded ${theirs.loudMs} ms loud`).toBeGreaterThan(0.6);
    expect(theirs.loudMs).toBeGreaterThan(1000);
    expect(browser.problems).toEqual([]);
  }, 120_000);
  sippJourney(
    'the join page shows each key the dialled party presses',
    async () => {
      type Id = { data: { id: string } };
      const must = async <T>(r: Promise<{ status: number; body: T }>, status: number) => {
        const res = await r;
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        return res.body;
      };
      // sipp answers, presses 5 then # about a second after the leg is up, and hangs up.
      const port = await freeUdpPort();
      const scenario = scenarioFile('outbound-answer-keys.xml', { DIGIT: 5 });
      keysCallee = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
      const project = (await must(server.api<Id>('POST', '/projects', { name: 'Party keys' }), 201)).data.id;
      const graph = {
        ...GRAPH,
        nodes: GRAPH.nodes.map((n) =>
          n.id === 'dial' ? { ...n, config: { ...n.config, from: KEYS_NUMBER } } : n,
        ),
      };
      const wf = (
        await must(server.api<Id>('POST', '/workflows', { project_id: project, name: 'Keys', graph }), 201)
      ).data.id;
      await must(server.api('POST', `/workflows/${wf}/publish`), 200);
      const trunk = (
        await must(
          server.api<Id>('POST', '/sip-trunks', {
            name: 'sipp',
            provider: 'generic',
            termination_uri: `sip:127.0.0.1:${port}`,
            auth_username: 'switchboard',
            auth_password: 'sipp-secret-1',
            transport: 'udp',
          }),
          201,
        )
      ).data.id;
      await must(
        server.api('POST', '/phone-numbers', {
          number: KEYS_NUMBER,
          sip_trunk_id: trunk,
          project_id: project,
        }),
        201,
      );
      const session = (
        await must(
          server.api<{ data: { id: string; join_url: string } }>('POST', '/sessions', {
            project_id: project,
            workflow_id: wf,
          }),
          201,
        )
      ).data;

      const { page } = browser;
      // A fresh document: the join page reads its token from the fragment once, as it loads.
      await page.goto('about:blank');
      await page.goto(session.join_url);
      await page.getByRole('button', { name: 'Start call' }).click();
      await page.getByText('The other party pressed 5').waitFor({ timeout: 60_000 });
      await page.getByText('The other party pressed #').waitFor();
      // Shown as the leg's events, in the order pressed.
      const lines = await page.getByText(/^The other party pressed /).allTextContents();
      expect(lines).toEqual(['The other party pressed 5', 'The other party pressed #']);
      await browser.shot('join-party-keys', 390);
      // sipp hangs up; the workflow goes on by `answered` to its end and the call ends.
      await page.getByText('Call ended').first().waitFor({ timeout: 60_000 });
      expect((await keysCallee.done).code).toBe(0);
      keysCallee = null;
      expect(browser.problems).toEqual([]);
    },
    120_000,
  );
});
