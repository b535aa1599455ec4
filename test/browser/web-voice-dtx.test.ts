// A browser that stops sending in silence (Opus DTX), in Debian's chromium through the /join page,
// against a real `switchboard serve` with the embedded recogniser. The service's answer does not
// ask for DTX; here the page sets `usedtx=1` on the answer's Opus fmtp line before applying it, as
// a deployment that munges SDP for bandwidth does, and Chromium's encoder then sends a packet every
// 400 ms or so while the microphone is silent. The fake microphone loops: a second of silence,
// "yes", a second of silence. Proven from both ends:
//
// - DTX was on: over the spans where the microphone was silent (getStats media-source energy did
//   not grow) the browser sent far fewer than 50 packets a second (outbound-rtp packetsSent);
// - the embedded recogniser heard "yes" and the condition took the `yes` branch;
// - the end of that turn was found in the two seconds of DTX pause after it: the keypad node was
//   left before the next "yes", with one burst of speech heard in all. A receiver that handed the
//   VAD only the frames that came (a few a second in the pause, not 50) never lets its 500 ms
//   hangover run out before the next "yes": run so, this journey never routes.
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
import { espeak, fakeMicrophoneFlags, micWav } from './microphone.js';

const executable = chromiumPath();
const journey = executable !== null || process.env.CI ? describe : describe.skip;

const THANKS = 'Thank you, that was a yes.';
const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'greet',
      type: 'speak',
      config: {
        text: 'Hello. This line listens for a yes. Say yes after the pause, and take your time.',
        barge_in: false,
      },
    },
    // No prompt: nothing plays while the microphone's silence and "yes" go out.
    { id: 'ask', type: 'dtmf', config: { num_digits: 1, timeout_seconds: 60, save_to_variable: 'x' } },
    { id: 'route', type: 'condition', config: { branches: [{ handle: 'yes', expression: "x == 'yes'" }] } },
    { id: 'thanks', type: 'speak', config: { text: THANKS } },
    { id: 'other', type: 'speak', config: { text: 'Goodbye.' } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'greet' },
    { source: 'greet', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'other' },
    { source: 'route', source_handle: 'yes', target: 'thanks' },
    { source: 'route', target: 'other' },
    { source: 'thanks', target: 'bye' },
    { source: 'other', target: 'bye' },
  ],
};

/**
 * Added by the DevTools protocol (the page's CSP does not govern it): every answer the page applies
 * gets `usedtx=1` on its Opus fmtp line; every quarter second the page's outbound audio is sampled
 * (`window.__sbSamples`: stats timestamp, packetsSent, the microphone's totalAudioEnergy), and each
 * `node` frame of the realtime socket is marked with the sample count at its arrival
 * (`window.__sbNodes`).
 */
const PAGE_SCRIPT = `{
  const Original = window.RTCPeerConnection;
  const peers = [];
  const munged = (window.__sbMunged = []);
  const dtx = (sdp) => {
    const pt = /^a=rtpmap:(\\d+) opus\\/48000/im.exec(sdp)?.[1];
    if (!pt) return sdp;
    const line = new RegExp('^(a=fmtp:' + pt + ' )(.*?)(\\\\r?)$', 'm');
    const out = line.test(sdp)
      ? sdp.replace(line, (all, head, params, cr) => /usedtx=/.test(params) ? head + params.replace(/usedtx=\\d/, 'usedtx=1') + cr : head + params + ';usedtx=1' + cr)
      : sdp.replace(new RegExp('^(a=rtpmap:' + pt + ' opus/48000.*?)(\\\\r?)$', 'm'), '$1$2\\na=fmtp:' + pt + ' usedtx=1$2');
    munged.push(out.match(new RegExp('^a=fmtp:' + pt + ' .*$', 'm'))?.[0]);
    return out;
  };
  window.RTCPeerConnection = class extends Original {
    constructor(config) { super(config); peers.push(this); }
    setRemoteDescription(desc) {
      if (desc && desc.type === 'answer') desc = { type: 'answer', sdp: dtx(desc.sdp) };
      return super.setRemoteDescription(desc);
    }
  };
  const samples = (window.__sbSamples = []);
  setInterval(async () => {
    for (const pc of peers) {
      if (pc.connectionState !== 'connected') continue;
      const stats = [...(await pc.getStats()).values()];
      const out = stats.find((r) => r.type === 'outbound-rtp' && r.kind === 'audio');
      const mic = stats.find((r) => r.type === 'media-source' && r.kind === 'audio');
      if (out && mic) samples.push({ t: out.timestamp, sent: out.packetsSent, energy: mic.totalAudioEnergy });
    }
  }, 250);
  const nodes = (window.__sbNodes = []);
  const OriginalWs = window.WebSocket;
  window.WebSocket = class extends OriginalWs {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        let frame;
        try { frame = JSON.parse(e.data); } catch { return; }
        if (frame?.type === 'node') nodes.push({ node: frame.node_id, event: frame.event, at: samples.length });
        if (frame?.type === 'user_text') nodes.push({ user: frame.text, at: samples.length });
      });
    }
  };
}`;

interface Sample {
  t: number;
  sent: number;
  energy: number;
}
interface Mark {
  node?: string;
  event?: string;
  user?: string;
  /** How many samples had been taken when the frame arrived. */
  at: number;
}

/** The microphone's energy grew by more than this over a sample interval: speech was playing. */
const SPEECH_ENERGY = 0.001;
const grew = (samples: Sample[], i: number): number => samples[i]!.energy - samples[i - 1]!.energy;

/**
 * Packets a second over the intervals inside the microphone's silence (no energy at all in the
 * interval or the one before it, so the encoder's hangover after speech is left out), and the
 * most packets a second in any one interval of speech.
 */
function rates(samples: Sample[]): { silent: number; silentSeconds: number; speechPeak: number } {
  let packets = 0;
  let ms = 0;
  let speechPeak = 0;
  for (let i = 2; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    if (grew(samples, i) === 0 && grew(samples, i - 1) === 0) {
      packets += b.sent - a.sent;
      ms += b.t - a.t;
    } else if (grew(samples, i) > SPEECH_ENERGY) {
      speechPeak = Math.max(speechPeak, ((b.sent - a.sent) * 1000) / (b.t - a.t));
    }
  }
  return { silent: (packets * 1000) / ms, silentSeconds: ms / 1000, speechPeak };
}

/** The bursts of speech (runs of intervals of speech) that overlap the samples [from, to]. */
function burstsBetween(samples: Sample[], from: number, to: number): number {
  let bursts = 0;
  for (let i = 1; i < samples.length; i++) {
    if (grew(samples, i) <= SPEECH_ENERGY || (i > 1 && grew(samples, i - 1) > SPEECH_ENERGY)) continue;
    // A burst starts at i: it counts when it runs into the window, however it started.
    let end = i;
    while (end + 1 < samples.length && grew(samples, end + 1) > SPEECH_ENERGY) end++;
    if (i <= to && end >= from) bursts++;
  }
  return bursts;
}

journey('a browser sending with Opus DTX (chromium, usedtx=1, embedded recogniser)', () => {
  let server: Server;
  let browser: Browser;
  let ids: Published;

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    if (!process.env.SB_NO_BUILD) await buildAll();
    server = await startServer({ WEBRTC_HOST: '127.0.0.1' });
    ids = await publishedWorkflow(server, { project: 'Dtx', workflow: 'Yes after a pause' }, GRAPH);
    browser = await openBrowser(
      executable,
      'web-voice-dtx',
      fakeMicrophoneFlags(micWav(espeak('yes'), 1000)),
    );
    await browser.page.setViewportSize({ width: 520, height: 900 });
    await browser.page.addInitScript({ content: PAGE_SCRIPT });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sends little in silence, and a "yes" after the pause is heard, ends its turn and routes', async () => {
    const { page } = browser;
    await joinCall(page, server, ids);
    await page.getByText(THANKS).waitFor({ timeout: 60_000 });

    // The answer the browser applied asked for DTX.
    const munged = (await page.evaluate('window.__sbMunged')) as string[];
    expect(munged).toHaveLength(1);
    expect(munged[0]).toMatch(/usedtx=1/);

    const samples = (await page.evaluate('window.__sbSamples')) as Sample[];
    const marks = (await page.evaluate('window.__sbNodes')) as Mark[];
    const r = rates(samples);
    console.log(
      `DTX: ${r.silent.toFixed(1)} packets/s over ${r.silentSeconds.toFixed(1)} s of silence, ` +
        `${r.speechPeak.toFixed(1)} packets/s at most in speech`,
    );
    // (a) DTX was on: 20 ms frames are 50 packets a second; Opus DTX keeps a few.
    expect(r.silentSeconds).toBeGreaterThan(1.5);
    expect(r.silent).toBeLessThan(10);
    // The same stats count every 20 ms frame while the "yes" plays.
    expect(r.speechPeak).toBeGreaterThan(40);

    // (b) the recogniser heard "yes", and the condition took its branch.
    expect(marks.filter((m) => m.user !== undefined).map((m) => m.user)).toEqual(['yes']);
    const mark = (node: string, event: string) => marks.find((m) => m.node === node && m.event === event);
    expect(mark('route', 'exited')).toBeDefined();
    expect(mark('thanks', 'entered')).toBeDefined();

    // (c) the end of turn came in the DTX pause after that "yes": while the keypad node listened,
    // one burst of speech was played, and the node was left before the next one began.
    const listening = [mark('ask', 'entered')!.at, mark('ask', 'exited')!.at];
    expect(burstsBetween(samples, listening[0]!, listening[1]!)).toBe(1);
    expect(browser.problems).toEqual([]);
  }, 120_000);
});
