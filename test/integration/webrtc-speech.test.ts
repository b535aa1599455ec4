// Speech over WebRTC, end to end, with no speech-to-text key: the Node browser stand-in
// (ClientPeer) joins a web session and speaks espeak-ng's words into its microphone as Opus; the
// embedded recogniser (soundswallower, what a fresh install hears with) takes them from the web
// channel's voice pipeline, and a keypad node routes on what was said. A "yes" said over the
// prompt also barges in: the rest of the prompt never reaches the browser. Then what was kept:
// the transcript (the user's words, latency_ms and its parts on the answer) and the usage (STT
// seconds, TTS characters).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TtsProvider, TtsRequest } from '../../src/providers/tts/tts.types.js';
import { systemClock } from '../../src/shared/clock.js';
import { ClientPeer } from '../../src/webrtc/client-peer.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { concat, noise, mix, silence, spoken } from '../support/generated-audio.js';
import { eventually, realtimeSocket, trickle } from '../support/realtime-socket.js';
import { storeKinds } from '../support/stores.js';

/** Speaks every text as a 440 Hz tone, 40 ms per character, in 100 ms chunks. */
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

function loud(pcm: Int16Array): boolean {
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / pcm.length) > 1500;
}

const PROMPT = 'Shall I book the table for two at eight tonight? Say yes or no, or press one or two.';
/** Where the keypad node's answer can lead. */
const BRANCHES = ['booked', 'two', 'other', 'silent'];
const PROMPT_FRAMES = (PROMPT.length * 40) / 20;

const graph = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: { prompt: PROMPT, num_digits: 1, timeout_seconds: 20, save_to_variable: 'choice' },
    },
    {
      id: 'route',
      type: 'condition',
      config: {
        branches: [
          { handle: 'booked', expression: "choice == 'yes'" },
          { handle: 'two', expression: "choice == '2'" },
        ],
      },
    },
    { id: 'booked', type: 'speak', config: { text: 'Booked for eight.' } },
    { id: 'two', type: 'speak', config: { text: 'Option two.' } },
    { id: 'other', type: 'speak', config: { text: 'You said {{choice}}.' } },
    { id: 'silent', type: 'speak', config: { text: 'We did not hear you.' } },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'silent' },
    { source: 'route', source_handle: 'booked', target: 'booked' },
    { source: 'route', source_handle: 'two', target: 'two' },
    { source: 'route', target: 'other' },
    { source: 'booked', target: 'bye' },
    { source: 'two', target: 'bye' },
    { source: 'other', target: 'bye' },
    { source: 'silent', target: 'bye' },
  ],
};

/** A quiet room, the words half a second in, then quiet long enough for the VAD's end of turn. */
async function utterance(words: string): Promise<Int16Array> {
  const said = await spoken(words);
  return mix(noise(500 + said.length / 16 + 1500, 30), concat(silence(500), said));
}

describe.each(storeKinds().slice(0, 1))(
  'speech over WebRTC with the embedded recogniser on $name',
  (kind) => {
    let t: TestApi;
    let base: string;
    let projectId: string;
    let workflowId: string;
    const peers: ClientPeer[] = [];

    beforeAll(async () => {
      // No STT override and no stt_vendor_1 key: the configured STT is the embedded recogniser.
      t = await startTestApi(kind, { sessionClock: systemClock, providers: { tts: new ToneTts() } });
      expect(t.wiring.providers.stt?.id).toBe('stt_vendor_1');
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      projectId = await createProject(t);
      workflowId = await createPublishedWorkflow(t, projectId, t.key, graph);
    });
    afterAll(async () => {
      for (const p of peers) p.close();
      await t?.close();
    });

    /** A session joined by a stand-in browser with its offer; what it heard, decoded, in order. */
    async function join() {
      const minted = await t.call('POST', '/api/v1/sessions', {
        body: { project_id: projectId, workflow_id: workflowId },
      });
      const s = (minted.data as { data: { id: string; join_token: string } }).data;
      const heard: Int16Array[] = [];
      const browser = new ClientPeer({ onAudio: (pcm) => heard.push(pcm) });
      peers.push(browser);
      const c = realtimeSocket(
        `${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}&media=webrtc`,
        [{ type: 'webrtc_offer', sdp: await browser.offer() }],
      );
      browser.accept(String((await c.waitFor((f) => f.type === 'webrtc_answer')).sdp));
      trickle(c, browser);
      await browser.connected();
      return { id: s.id, browser, c, heard };
    }

    async function transcript(sessionId: string) {
      return t.store.db
        .selectFrom('messages')
        .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
        .select(['messages.role', 'messages.content', 'messages.latency_ms', 'messages.latency'])
        .where('conversations.session_id', '=', sessionId)
        .orderBy('messages.sequence')
        .execute();
    }

    async function usage(metric: string) {
      return eventually(async () => {
        const rows = await t.store.db
          .selectFrom('usage_events')
          .select(['provider', 'quantity'])
          .where('metric', '=', metric)
          .execute();
        return rows.length > 0 ? rows : undefined;
      });
    }

    it('a "yes" said over the prompt barges in, is heard offline and routes the keypad node', async () => {
      const { id, browser, c, heard } = await join();
      // A second of the prompt reaches the browser, then it says "yes" over the rest.
      await eventually(async () => (heard.filter(loud).length >= 50 ? true : undefined));
      browser.speak(await utterance('yes'));
      const exited = await c.waitFor((f) => f.type === 'node' && f.event === 'exited' && f.node_id === 'ask');
      expect(exited).toMatchObject({ handle: 'success' });
      // Barged in: the prompt stopped soon after the word began. Without barge-in the whole prompt
      // (PROMPT_FRAMES) would have played before the node listened at all.
      const promptHeard = heard.filter(loud).length;
      expect(promptHeard).toBeLessThan(PROMPT_FRAMES - 40);
      expect(
        await c.waitFor(
          (f) => f.type === 'node' && f.event === 'entered' && BRANCHES.includes(String(f.node_id)),
        ),
      ).toMatchObject({ node_id: 'booked' });
      expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
      const messages = await eventually(async () => {
        const rows = await transcript(id);
        return rows.length >= 3 ? rows : undefined;
      });
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['assistant', PROMPT],
        ['user', 'yes'],
        ['assistant', 'Booked for eight.'],
      ]);
      // The answer to the spoken turn carries latency_ms and where it went; the prompt has none.
      expect(messages[0]!.latency_ms).toBeNull();
      const reply = messages[2]!;
      expect(Number(reply.latency_ms)).toBeGreaterThan(0);
      const parts = JSON.parse(reply.latency!) as Record<string, number | null>;
      // The VAD waits out its hangover before the turn is over; the recogniser then takes its time.
      expect(parts.endpointing_ms).toBeGreaterThan(0);
      expect(parts.stt_ms).toBeGreaterThanOrEqual(0);
      expect(parts.tts_first_audio_ms).not.toBeNull();
      expect(parts.first_packet_ms).not.toBeNull();

      // Metered: the characters given to TTS (the whole prompt was synthesised before the barge-in
      // cut its playback), and the seconds of microphone audio the recogniser was sent.
      const tts = await usage('tts_characters');
      expect(tts).toContainEqual({
        provider: 'tone_tts',
        quantity: PROMPT.length + 'Booked for eight.'.length,
      });
      const stt = await usage('stt_seconds');
      expect(stt[0]!.provider).toBe('stt_vendor_1');
      expect(Number(stt[0]!.quantity)).toBeGreaterThanOrEqual(1);
      c.ws.close();
    }, 90_000);

    it('a digit said after the prompt is heard as the key and routes its branch', async () => {
      const { id, browser, c, heard } = await join();
      // The whole prompt plays; the browser waits for it to end, then says "two".
      await c.waitFor((f) => f.type === 'node' && f.event === 'entered' && f.node_id === 'ask');
      await eventually(async () => (heard.filter(loud).length >= PROMPT_FRAMES - 5 ? true : undefined));
      browser.speak(await utterance('two'));
      // The branch of choice == '2': the keypad node saved the digit the word names.
      expect(
        await c.waitFor(
          (f) => f.type === 'node' && f.event === 'entered' && BRANCHES.includes(String(f.node_id)),
        ),
      ).toMatchObject({ node_id: 'two' });
      expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
      const messages = await eventually(async () => {
        const rows = await transcript(id);
        return rows.length >= 3 ? rows : undefined;
      });
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['assistant', PROMPT],
        ['user', 'two'],
        ['assistant', 'Option two.'],
      ]);
      expect(Number(messages[2]!.latency_ms)).toBeGreaterThan(0);
      c.ws.close();
    }, 90_000);
  },
);
