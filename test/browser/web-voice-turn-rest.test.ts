// Short-lived TURN credentials: Debian's coturn on loopback in TURN REST mode (`use-auth-secret`,
// `static-auth-secret`), the service configured with the same secret (WEBRTC_TURN_SECRET) and the
// relay's URL (WEBRTC_TURN_URLS). Chromium on the /join page, every peer connection forced to
// relay candidates, connects with the credential the service minted for its session (handed out
// by join-info): ICE and DTLS complete over a relay candidate, the fake microphone's "yes" is
// heard by the service and routes the keypad node, and the answer it then speaks plays in the
// browser (inbound packets and audio energy). coturn takes that credential and refuses the same
// session's credential once its expiry has passed, and one signed with another secret. The
// greeting, spoken the moment the call is up, arrives whole: over a relay the media path takes
// long enough to open that a greeting played on ICE's 'connected' alone lost most of its frames.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocate, haveTurnserver, restCredential, startCoturn, type Coturn } from '../support/coturn.js';
import { buildAll, chromiumPath, openBrowser, startServer, type Browser, type Server } from './support.js';
import {
  durationMs,
  espeak,
  fakeMicrophoneFlags,
  forceRelayOnly,
  micWav,
  nodeAudio,
  watchNodeAudio,
} from './microphone.js';

const executable = chromiumPath();
const journey = (executable !== null && haveTurnserver()) || process.env.CI ? describe : describe.skip;
const SECRET = 'turn-rest-test-secret';

const GREETING =
  'Welcome. This greeting starts the moment the call is up, and every word of it should reach you through the relay.';
const THANKS = 'Thank you. Your answer came through the relay, and so does this sentence.';
const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    // Not cut short by the microphone's "yes": the whole greeting is played.
    { id: 'greet', type: 'speak', config: { text: GREETING, barge_in: false } },
    // No prompt: nothing is played between the greeting and the answer to "yes".
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

interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

journey('minted TURN credentials (coturn use-auth-secret, chromium relay-only)', () => {
  let turn: Coturn;
  let server: Server;
  let browser: Browser;
  let project = '';
  let workflow = '';

  beforeAll(async () => {
    if (!executable) throw new Error('chromium is not installed (apt-get install chromium)');
    if (!haveTurnserver()) throw new Error('coturn is not installed (apt-get install coturn)');
    if (!process.env.SB_NO_BUILD) await buildAll();
    turn = await startCoturn({ authSecret: SECRET });
    server = await startServer({
      WEBRTC_HOST: '127.0.0.1',
      WEBRTC_TURN_SECRET: SECRET,
      WEBRTC_TURN_URLS: `turn:127.0.0.1:${turn.port}?transport=udp`,
      WEBRTC_TURN_TTL_SECONDS: '600',
    });
    const p = await server.api<{ data: { id: string } }>('POST', '/projects', { name: 'Turn' });
    const w = await server.api<{ data: { id: string } }>('POST', '/workflows', {
      project_id: p.body.data.id,
      name: 'Relay',
      graph: GRAPH,
    });
    expect((await server.api('POST', `/workflows/${w.body.data.id}/publish`)).status).toBe(200);
    [project, workflow] = [p.body.data.id, w.body.data.id];
    browser = await openBrowser(
      executable,
      'web-voice-turn-rest',
      fakeMicrophoneFlags(micWav(espeak('yes'), 1500)),
    );
    await browser.page.setViewportSize({ width: 520, height: 900 });
    await forceRelayOnly(browser.page);
    await watchNodeAudio(browser.page);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await turn?.stop();
  });

  it('connects relay-only with the credential minted for its session; coturn refuses expired ones', async () => {
    const { page } = browser;
    const s = await server.api<{ data: { id: string; join_url: string; join_token: string } }>(
      'POST',
      '/sessions',
      { project_id: project, workflow_id: workflow },
    );
    const sessionId = s.body.data.id;

    // join-info hands out a credential for this session, valid for WEBRTC_TURN_TTL_SECONDS.
    const info = await fetch(`${server.base}/api/v1/join-info`, {
      headers: { Authorization: `Bearer ${s.body.data.join_token}` },
    });
    const servers = ((await info.json()) as { data: { ice_servers: IceServer[] } }).data.ice_servers;
    expect(servers).toHaveLength(1);
    const minted = servers[0]!;
    expect(minted.urls).toEqual([`turn:127.0.0.1:${turn.port}?transport=udp`]);
    const [expiry, user] = minted.username!.split(':');
    expect(user).toBe(sessionId);
    const now = Math.floor(Date.now() / 1000);
    expect(Number(expiry)).toBeGreaterThan(now + 500);
    expect(Number(expiry)).toBeLessThanOrEqual(now + 601);
    expect(minted.credential).toBe(restCredential(SECRET, sessionId, Number(expiry)).credential);

    // coturn takes it; the same session's credential past its expiry, or signed with another
    // secret, is refused (401).
    expect(await allocate(turn.port, minted.username!, minted.credential!)).toBe('allocated');
    const expired = restCredential(SECRET, sessionId, now - 60);
    expect(await allocate(turn.port, expired.username, expired.credential)).toBe(401);
    const forged = restCredential('another-secret', sessionId, now + 600);
    expect(await allocate(turn.port, forged.username, forged.credential)).toBe(401);

    // The browser, relay-only, joins with what join-info hands it.
    await page.goto(s.body.data.join_url);
    await page.getByRole('button', { name: 'Start call' }).click();
    await page.getByText('Connected: speak any time.').waitFor({ timeout: 60_000 });
    await page.getByText(GREETING).waitFor();
    // The pair the peer connection selected: the browser's side is a relay candidate, and DTLS
    // completed over it (ICE checks and the handshake went through coturn with the credential).
    let pair: { local: string; dtls: string } | null = null;
    for (let i = 0; i < 80 && pair?.dtls !== 'connected'; i++) {
      await page.waitForTimeout(250);
      pair = (await page.evaluate(`(async () => {
        for (const pc of window.__sbPeers ?? []) {
          const stats = [...(await pc.getStats()).values()];
          const transport = stats.find((r) => r.type === 'transport' && r.selectedCandidatePairId);
          const selected = stats.find((r) => r.id === transport?.selectedCandidatePairId);
          const local = stats.find((r) => r.id === selected?.localCandidateId);
          if (local) return { local: local.candidateType, dtls: transport.dtlsState };
        }
        return null;
      })()`)) as { local: string; dtls: string } | null;
    }
    expect(pair).toEqual({ local: 'relay', dtls: 'connected' });
    // coturn allocated for the session's own minted user (the expiry:session-id username).
    expect(turn.log()).toContain(`:${sessionId}`);

    // Audio both ways through the relay: the microphone's "yes" reaches the service's recogniser
    // and routes the keypad node (browser → service), and the answer it speaks then, once both
    // sides are long up, plays in the browser (service → browser: packets and audio energy).
    await page
      .getByText(THANKS)
      .waitFor({ timeout: 60_000 })
      .catch(async (err: unknown) => {
        // What the page showed, what coturn relayed each way, what the browser sent and got.
        console.log((await page.textContent('body'))?.slice(0, 1500));
        console.log(
          turn
            .log()
            .split('\n')
            .filter((l) => /usage|PERMISSION|CHANNEL/.test(l))
            .join('\n'),
        );
        console.log(
          JSON.stringify(
            await page.evaluate(`(async () => {
              const out = [];
              for (const pc of window.__sbPeers ?? [])
                for (const r of (await pc.getStats()).values())
                  if (r.type === 'inbound-rtp' || r.type === 'outbound-rtp')
                    out.push([r.type, r.packetsReceived, r.packetsSent]);
              return out;
            })()`),
          ),
        );
        throw err;
      });
    // The greeting arrived whole: what the browser had received when the condition node started
    // (after the greeting, before the answer; nothing is played in between) is at least 90% of
    // the greeting's 20 ms frames.
    const frames = Math.floor(durationMs(espeak(GREETING)) / 20);
    let routed = (await nodeAudio(page)).find((m) => m.node === 'route' && m.event === 'entered');
    for (let i = 0; i < 20 && routed?.packets === null; i++) {
      await page.waitForTimeout(100); // getStats() still answering
      routed = (await nodeAudio(page)).find((m) => m.node === 'route' && m.event === 'entered');
    }
    console.log(`relay-only chromium received ${routed?.packets} packets of a ${frames}-frame greeting`);
    expect(routed?.packets).toBeGreaterThanOrEqual(Math.ceil(frames * 0.9));

    let heard = { packets: 0, energy: 0 };
    while (!(await page.getByText('Call ended').first().isVisible())) {
      const now = (await page.evaluate(`(async () => {
        for (const pc of window.__sbPeers ?? []) {
          if (pc.connectionState === 'closed') continue;
          const inbound = [...(await pc.getStats()).values()].find((r) => r.type === 'inbound-rtp' && r.kind === 'audio');
          if (inbound) return { packets: inbound.packetsReceived, energy: inbound.totalAudioEnergy ?? 0 };
        }
        return null;
      })()`)) as { packets: number; energy: number } | null;
      if (now && now.packets >= heard.packets) heard = now;
      await page.waitForTimeout(200);
    }
    console.log(
      `relay-only chromium received ${heard.packets} RTP packets, total audio energy ${heard.energy}`,
    );
    expect(heard.packets).toBeGreaterThan(100); // the answer alone is some 4 s: 200 packets of 20 ms
    expect(heard.energy).toBeGreaterThan(0);
    expect(browser.problems).toEqual([]);
  }, 120_000);
});
