// Whole workflows through the engine on a PhoneChannel: a LiveSession (as the call host makes
// one) runs the golden pin-menu graph and an agent turn over a fake call media, on a FakeClock.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeCallControl, FakeCallMedia } from '../../test/support/voice-media.js';
import { FakeSttProvider, FakeTtsProvider } from '../../test/support/voice-providers.js';
import type { EngineEvent } from '../engine/events.js';
import { SessionRegistry, type LiveSession, type SessionSummary } from '../engine/session-runtime.js';
import { graph, testAgent } from '../../test/support/engine-harness.js';
import type { WorkflowGraph } from '../engine/workflow-deps.js';
import { ScriptedLlm } from '../providers/llm/scripted.js';
import { EspeakTtsProvider } from '../providers/tts/espeak.js';
import type { TtsProvider } from '../providers/tts/tts.types.js';
import { FakeClock } from '../shared/clock.js';
import { PhoneChannel } from './phone-channel.js';

const pinMenu = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../test/fixtures/graphs/pin-menu.json'), 'utf8'),
) as WorkflowGraph;

const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function call(
  g: WorkflowGraph,
  extra: {
    llm?: ScriptedLlm;
    clock?: FakeClock;
    tts?: TtsProvider;
    agent?: Parameters<typeof testAgent>[0];
  } = {},
) {
  const clock = extra.clock ?? new FakeClock();
  const media = new FakeCallMedia(clock);
  const tts = (extra.tts ?? new FakeTtsProvider()) as FakeTtsProvider;
  const stt = new FakeSttProvider();
  const channel = new PhoneChannel({
    clock,
    media,
    control: new FakeCallControl(),
    tts,
    voice: 'en',
    stt,
  });
  const session = new SessionRegistry().create({
    sessionId: 'call-session',
    clock,
    channel,
    graph: g,
    seeds: { dispatch: { name: 'Ada' } },
    keepHistory: true,
    ...(extra.llm
      ? { llm: { fake: extra.llm }, getAgent: async () => testAgent({ greeting: null, ...extra.agent }) }
      : {}),
  });
  let summary: SessionSummary | null = null;
  void session.done.then((s) => (summary = s));
  /** Runs the clock in 100 ms steps until the session ends (at most `maxMs`). */
  const runToEnd = async (maxMs = 60_000): Promise<SessionSummary> => {
    for (let t = 0; t < maxMs && !summary; t += 100) {
      clock.advance(100);
      await drain();
    }
    expect(summary, 'the session did not end').not.toBeNull();
    return summary!;
  };
  return { clock, media, tts, stt, channel, session, runToEnd };
}

function exits(session: LiveSession): [string, string][] {
  return session.events.events
    .filter((e): e is Extract<EngineEvent, { type: 'node.exited' }> => e.type === 'node.exited')
    .map((e) => [e.node_id, e.handle]);
}

describe('workflows on the phone channel', () => {
  it('pin-menu: a key pressed during the prompt barges in and is the choice', async () => {
    const { clock, media, tts, session, runToEnd } = call(pinMenu);
    session.start();
    await drain();
    clock.advance(400);
    await drain();
    media.pushDigit('1');
    expect(media.stops).toHaveLength(1);
    const summary = await runToEnd();
    expect(summary).toMatchObject({ endReason: 'completed', execution: { variables: { choice: '1' } } });
    expect(exits(session)).toEqual([
      ['start', 'default'],
      ['ask', 'success'],
      ['route', 'sales'],
      ['sales', 'default'],
      ['bye', 'default'],
    ]);
    expect(tts.requests.map((r) => r.text)).toEqual([
      'Press 1 for sales, 2 for support',
      'Connecting you to sales, Ada.',
    ]);
    // 400 ms of the prompt, then all 29 characters × 50 ms of the second one.
    expect(media.playedSamples).toBeGreaterThan(16 * 1450);
  });

  it('pin-menu: silence after the prompt leaves the dtmf node by timeout, five seconds after the prompt ended', async () => {
    const { session, tts, runToEnd } = call(pinMenu);
    session.start();
    const summary = await runToEnd();
    expect(summary.endReason).toBe('completed');
    expect(exits(session).map(([id, handle]) => `${id}:${handle}`)).toEqual([
      'start:default',
      'ask:timeout',
      'silence:default',
      'bye:default',
    ]);
    const at = (type: string, node: string) =>
      session.events.events.find((e) => e.type === type && 'node_id' in e && e.node_id === node)!.at;
    // 32 characters of prompt (1.6 s), then 5 s of silence.
    expect(at('node.exited', 'ask') - at('node.entered', 'ask')).toBe(6600);
    expect(tts.requests.at(-1)!.text).toBe('We did not hear you.');
  });

  it('an agent turn: the caller is heard through STT and latency_ms runs from the end of their speech', async () => {
    const clock = new FakeClock();
    const llm = new ScriptedLlm({ clock, firstTokenMs: 300, replies: [{ text: 'Your table is booked.' }] });
    const g = graph(
      [
        ['start', 'start'],
        ['agent', 'agent', { agent_id: 'agent-1', max_turns: 1 }],
        ['bye', 'end'],
      ],
      [
        ['start', 'agent'],
        ['agent', 'bye'],
      ],
    );
    const { media, stt, tts, session, runToEnd } = call(g, { llm, clock });
    session.start();
    await drain();
    expect(stt.sessions).toHaveLength(1);
    for (let i = 0; i < 75; i++) {
      clock.advance(20);
      media.pushAudio();
    }
    // The vendor ends the turn 500 ms after the last word (which ended 1 s into the audio).
    stt.session.final('a table for two at eight', 100, 900, true);
    await drain();
    const summary = await runToEnd();
    expect(summary.endReason).toBe('completed');
    const messages = session.events.events.filter(
      (e): e is Extract<EngineEvent, { type: 'message' }> => e.type === 'message',
    );
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'a table for two at eight'],
      ['assistant', 'Your table is booked.'],
    ]);
    // Heard at 1000, said by the vendor at 1500, first token 300 ms later: 800 ms.
    expect(messages[1]!.latency_ms).toBe(800);
    expect(messages[1]!.latency, JSON.stringify(messages[1]!.latency)).toEqual({
      endpointing_ms: 500,
      stt_ms: 0,
      llm_first_token_ms: 300,
      tts_first_audio_ms: 0,
      first_packet_ms: 5,
    });
    expect(tts.requests.map((r) => r.text)).toEqual(['Your table is booked.']);
  });

  it('with espeak-ng missing the menu still runs: every prompt is in the transcript, none is played', async () => {
    const { session, media, runToEnd } = call(pinMenu, {
      tts: new EspeakTtsProvider({ command: '/nonexistent/espeak-ng' }),
    });
    session.start();
    const summary = await runToEnd();
    expect(summary.endReason).toBe('completed');
    const said = session.events.events
      .filter((e): e is Extract<EngineEvent, { type: 'message' }> => e.type === 'message')
      .map((m) => m.content);
    expect(said).toEqual(['Press 1 for sales, 2 for support', 'We did not hear you.']);
    expect(media.played).toHaveLength(0);
  });

  it('a TTS failure fails the execution with the vendor message', async () => {
    const { session, media, runToEnd } = call(pinMenu, { tts: new FakeTtsProvider({ failAfter: 1 }) });
    session.start();
    const summary = await runToEnd();
    expect(summary).toMatchObject({
      endReason: 'failed',
      execution: { error: { code: 'node_error', message: 'fake_tts: HTTP 500: vendor exploded' } },
    });
    expect(media.stops).toHaveLength(1);
  });

  it("an agent's voice settings reach TTS and STT, and its exits and the conditions after it are the turn's hints", async () => {
    const clock = new FakeClock();
    const llm = new ScriptedLlm({ clock, replies: [{ text: 'Bonjour.' }] });
    const g = graph(
      [
        ['start', 'start'],
        [
          'agent',
          'agent',
          { agent_id: 'agent-1', max_turns: 1, greeting: 'Allô ?', exits: ['talk_to_sales'] },
        ],
        ['route', 'condition', { branches: [{ handle: 'b', expression: "contains(x, 'factures')" }] }],
        ['bye', 'speak', { text: 'Au revoir.' }],
        ['end', 'end'],
      ],
      [
        ['start', 'agent'],
        ['agent', 'route'],
        ['route', 'bye'],
        ['bye', 'end'],
      ],
    );
    const { media, stt, tts, session, runToEnd } = call(g, {
      llm,
      clock,
      agent: { tts_voice: 'fr+f2', stt_language: 'fr-FR' },
    });
    session.start();
    // The greeting opens the session (speech may barge in), in the agent's language; the listen
    // after it says what the turn is expected to hold.
    for (let i = 0; i < 200 && (stt.sessions.at(-1)?.expected.length ?? 0) === 0; i++) {
      clock.advance(20);
      media.pushAudio();
      await drain();
    }
    expect(stt.sessions).toHaveLength(1);
    expect(stt.session.options.language).toBe('fr-FR');
    expect(stt.session.expected).toEqual([{ phrases: ['talk_to_sales', 'factures'] }]);
    stt.session.final('je veux les factures', 0, 900, true);
    await runToEnd();
    // The speak node after the agent keeps the agent's voice.
    expect(tts.requests.map((r) => [r.text, r.voice, r.language])).toEqual([
      ['Allô ?', 'fr+f2', 'fr-FR'],
      ['Bonjour.', 'fr+f2', 'fr-FR'],
      ['Au revoir.', 'fr+f2', 'fr-FR'],
    ]);
  });
});
