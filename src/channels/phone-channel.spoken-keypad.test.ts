// Spoken digits and a spoken "yes" at a keypad node, through the whole voice pipeline with the
// embedded recogniser: espeak-ng says the words, the audio reaches a PhoneChannel as 20 ms frames
// (a fake call media on a FakeClock), the VAD cuts the utterance, soundswallower decodes it with
// the turn's grammar (digits, yes/no and the words of the condition after the node), and the
// condition routes on what the dtmf node saved.
import { afterAll, describe, expect, it } from 'vitest';
import { FakeCallControl, FakeCallMedia } from '../../test/support/voice-media.js';
import { FakeTtsProvider } from '../../test/support/voice-providers.js';
import { graph } from '../../test/support/engine-harness.js';
import { concat, frames, mix, noise, silence, spoken } from '../../test/support/generated-audio.js';
import type { EngineEvent } from '../engine/events.js';
import { SessionRegistry, type SessionSummary } from '../engine/session-runtime.js';
import type { WorkflowGraph } from '../engine/workflow-deps.js';
import { OfflineRecognizer } from '../providers/stt/offline/offline-recognizer.js';
import { UtteranceSttProvider } from '../providers/stt/utterance-session.js';
import { FakeClock } from '../shared/clock.js';
import { PhoneChannel } from './phone-channel.js';

const recognizer = new OfflineRecognizer();
afterAll(() => recognizer.close());

/** Lets promise callbacks run and gives the decoder thread real time. */
const pause = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A keypad node whose answer a condition reads: `1` or "yes" → yes, `2` or "no" → no. */
function menu(config: Record<string, unknown>, branches: [string, string][]): WorkflowGraph {
  return graph(
    [
      ['start', 'start'],
      ['ask', 'dtmf', { timeout_seconds: 5, save_to_variable: 'choice', ...config }],
      ['route', 'condition', { branches: branches.map(([handle, expression]) => ({ handle, expression })) }],
      ...branches.map(([handle]) => [handle, 'end'] as [string, 'end']),
      ['other', 'end'],
    ],
    [
      ['start', 'ask'],
      ['ask', 'route', 'success'],
      ['ask', 'other', 'timeout'],
      ...branches.map(([handle]) => ['route', handle, handle] as [string, string, string]),
      ['route', 'other'],
    ],
  );
}

/** Runs `g` on a phone channel; the caller says `words` once the prompt has played. */
async function callAndSay(g: WorkflowGraph, words: string) {
  const clock = new FakeClock();
  const media = new FakeCallMedia(clock);
  const channel = new PhoneChannel({
    clock,
    media,
    control: new FakeCallControl(),
    tts: new FakeTtsProvider(),
    voice: 'en',
    stt: new UtteranceSttProvider(recognizer, { clock }),
  });
  const session = new SessionRegistry().create({
    sessionId: 's',
    clock,
    channel,
    graph: g,
    seeds: {},
    keepHistory: true,
  });
  let summary: SessionSummary | null = null;
  void session.done.then((s) => (summary = s));
  session.start();
  // The prompt ("Say or press", 50 ms a character on the fake TTS) plays out.
  for (let t = 0; t < 2000; t += 100) {
    clock.advance(100);
    await pause();
  }
  // The caller: a quiet line, the words, the line quiet again for the VAD's end of turn.
  const said = await spoken(words);
  const line = mix(noise(500 + said.length / 16 + 1500, 30), concat(silence(500), said));
  for (const f of frames(line)) {
    clock.advance(20);
    media.pushAudio(f);
    await pause();
  }
  // Decoding takes real time on the worker thread; the fake clock stays well inside the timeout.
  for (let i = 0; i < 200 && !summary; i++) await pause(25);
  expect(summary, 'the session did not end').not.toBeNull();
  console.log(
    JSON.stringify(
      session.events.events.map((e) => [
        e.type,
        e.at,
        'node_id' in e ? e.node_id : '',
        'handle' in e ? e.handle : '',
        'content' in e ? e.content : '',
      ]),
    ),
    clock.monotonic(),
  );
  const events = session.events.events;
  const heard = events
    .filter((e): e is Extract<EngineEvent, { type: 'message' }> => e.type === 'message' && e.role === 'user')
    .map((m) => m.content);
  const path = events
    .filter((e): e is Extract<EngineEvent, { type: 'node.exited' }> => e.type === 'node.exited')
    .map((e) => `${e.node_id}:${e.handle}`);
  return { summary: summary! as SessionSummary, heard, path };
}

describe('spoken input at a dtmf node, heard by the embedded recogniser', () => {
  it('a spoken "yes" is saved and routes the condition that looks for it', async () => {
    const g = menu({ prompt: 'Say or press', num_digits: 1 }, [
      ['yes', "choice == '1' || choice == 'yes'"],
      ['no', "choice == '2' || choice == 'no'"],
    ]);
    const { summary, heard, path } = await callAndSay(g, 'yes');
    expect(heard).toEqual(['yes']);
    expect(summary.execution?.variables).toMatchObject({ choice: 'yes' });
    expect(path).toEqual(['start:default', 'ask:success', 'route:yes', 'yes:default']);
  }, 60_000);

  it('a spoken number is the digits, and routes as the keys would', async () => {
    const g = menu({ prompt: 'Say or press', num_digits: 3 }, [['match', "choice == '456'"]]);
    const { summary, heard, path } = await callAndSay(g, 'four five six');
    expect(heard).toEqual(['four five six']);
    expect(summary.execution?.variables).toMatchObject({ choice: '456' });
    expect(path).toEqual(['start:default', 'ask:success', 'route:match', 'match:default']);
  }, 60_000);
});
