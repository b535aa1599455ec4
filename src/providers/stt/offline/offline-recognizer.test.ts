// The embedded recogniser on espeak-ng speech over a quiet line (-60 dBFS noise), cut by the VAD
// exactly as on a call. The word-accuracy table in docs/providers.md comes from this test: run it
// with SHOW_ACCURACY=1 to print every transcript. Debian's model is checked when it is installed,
// and required under CI (.ci/run installs pocketsphinx-en-us).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { concat, frames, mix, noise, silence, spoken } from '../../../../test/support/generated-audio.js';
import type { SpeechHints } from '../stt.types.js';
import { UtteranceSttProvider } from '../utterance-session.js';
import { DEBIAN_EN_US_DIR, OfflineRecognizer, type OfflineRecognizerOptions } from './offline-recognizer.js';

const YES_NO: SpeechHints = { phrases: ['yes', 'no'] };
const EXITS: SpeechHints = { phrases: ['billing', 'sales', 'support'] };
const DIGITS: SpeechHints = { digits: true };

interface Case {
  say: string;
  hints?: SpeechHints;
  /** What a workflow acts on: the answer, the exit, or the number. */
  key: string;
}

const CASES: Case[] = [
  { say: 'yes', hints: YES_NO, key: 'yes' },
  { say: 'no', hints: YES_NO, key: 'no' },
  { say: 'yes please', hints: YES_NO, key: 'yes' },
  { say: 'no thanks', hints: YES_NO, key: 'no' },
  { say: 'billing', hints: EXITS, key: 'billing' },
  { say: 'sales', hints: EXITS, key: 'sales' },
  { say: 'support', hints: EXITS, key: 'support' },
  { say: 'please transfer me to billing', hints: EXITS, key: 'billing' },
  { say: 'i want to talk to sales', hints: EXITS, key: 'sales' },
  { say: 'four five six seven', hints: DIGITS, key: 'four five six seven' },
  { say: 'one two three', hints: DIGITS, key: 'one two three' },
  { say: 'eight', hints: DIGITS, key: 'eight' },
  { say: 'zero nine', hints: DIGITS, key: 'zero nine' },
  { say: 'seven two', hints: DIGITS, key: 'seven two' },
  { say: 'nine one one', hints: DIGITS, key: 'nine one one' },
  { say: 'two four six eight', hints: DIGITS, key: 'two four six eight' },
  { say: 'yes', key: 'yes' },
  { say: 'no', key: 'no' },
  { say: 'i need help with my account', key: 'i need help with my account' },
  { say: 'cancel my order', key: 'cancel my order' },
];

const recognizers: OfflineRecognizer[] = [];
afterAll(async () => {
  for (const r of recognizers) await r.close();
});

/** Words of the key heard in order (for digits: position by position), over the key's words. */
function keyWordsRight(key: string, text: string): number {
  const want = key.split(' ');
  const got = text.split(' ');
  if (want.length === 1) return got.includes(want[0]!) ? 1 : 0;
  return want.filter((w, i) => got[i] === w).length;
}

async function table(
  options: OfflineRecognizerOptions,
): Promise<Map<string, { text: string; right: number; of: number }>> {
  const recognizer = new OfflineRecognizer(options);
  recognizers.push(recognizer);
  const provider = new UtteranceSttProvider(recognizer);
  const out = new Map<string, { text: string; right: number; of: number }>();
  for (const c of CASES) {
    const before = { ...recognizer.stats };
    const session = await provider.start({ sampleRate: 16000, ...(c.hints ? { hints: c.hints } : {}) });
    const words = await spoken(c.say);
    const line = mix(noise(500 + words.length / 16 + 1500, 30), concat(silence(500), words));
    for (const f of frames(line)) session.sendAudio(f);
    const closing = session.close();
    const texts: string[] = [];
    for await (const e of session.events) if (e.type === 'transcript') texts.push(e.text);
    await closing;
    const text = texts.join(' ');
    if (process.env.SHOW_ACCURACY) {
      const cpu = (recognizer.stats.decodeMs - before.decodeMs) / (recognizer.stats.audioMs - before.audioMs);
      console.log(`${c.say}: decode ${cpu.toFixed(3)} s per s of audio`);
    }
    out.set(`${c.hints ? JSON.stringify(c.hints) : 'open'} ${c.say}`, {
      text,
      right: keyWordsRight(c.key, text),
      of: c.key.split(' ').length,
    });
  }
  if (process.env.SHOW_ACCURACY) {
    const { audioMs, decodeMs } = recognizer.stats;
    console.log(
      options.englishModel,
      Object.fromEntries(out),
      `decode: ${(decodeMs / audioMs).toFixed(3)} s per s of audio`,
    );
  }
  return out;
}

function rate(results: Map<string, { right: number; of: number }>, prefix: string): number {
  let right = 0;
  let of = 0;
  for (const [k, r] of results) {
    if (!k.startsWith(prefix)) continue;
    right += r.right;
    of += r.of;
  }
  return right / of;
}

const haveDebianModel = existsSync(join(DEBIAN_EN_US_DIR, 'en-us', 'mdef'));

describe('the embedded recogniser (soundswallower)', () => {
  it('hears yes, no and the expected exit with the package model alone', async () => {
    const results = await table({ englishModel: 'soundswallower-en-us' });
    expect(results.get(`${JSON.stringify(YES_NO)} yes`)!.text).toBe('yes');
    expect(results.get(`${JSON.stringify(YES_NO)} no`)!.text).toBe('no');
    expect(results.get(`${JSON.stringify(EXITS)} billing`)!.text).toBe('billing');
    expect(results.get(`${JSON.stringify(EXITS)} please transfer me to billing`)!.right).toBe(1);
    // Measured: yes/no 3/4, exits 4/5, digits 5/19 words, open speech 2/11 (docs/providers.md).
    expect(rate(results, JSON.stringify(YES_NO))).toBeGreaterThanOrEqual(0.75);
    expect(rate(results, JSON.stringify(EXITS))).toBeGreaterThanOrEqual(0.8);
  });

  (haveDebianModel || process.env.CI ? it : it.skip)(
    "with Debian's pocketsphinx-en-us model: yes/no, exits and most digits right",
    async () => {
      const results = await table({ englishModel: 'pocketsphinx-en-us' });
      for (const c of CASES.filter((x) => x.hints === EXITS)) {
        expect(results.get(`${JSON.stringify(EXITS)} ${c.say}`)!.right, c.say).toBe(1);
      }
      expect(results.get(`${JSON.stringify(DIGITS)} one two three`)!.text).toBe('one two three');
      expect(results.get(`${JSON.stringify(DIGITS)} eight`)!.text).toBe('eight');
      expect(results.get(`${JSON.stringify(YES_NO)} yes`)!.text).toBe('yes');
      expect(results.get(`${JSON.stringify(YES_NO)} no`)!.text).toBe('no');
      // Measured: yes/no 3/4, exits 5/5, digits 13/19 words, open speech 3/11 (docs/providers.md).
      expect(rate(results, JSON.stringify(YES_NO))).toBeGreaterThanOrEqual(0.75);
      expect(rate(results, JSON.stringify(DIGITS))).toBeGreaterThanOrEqual(0.6);
    },
  );

  it('picks the French model for fr-* and Debian’s English model when it is installed', () => {
    const r = new OfflineRecognizer({ debianDir: '/nonexistent' });
    expect(r.modelFor('fr-FR')).toBe('soundswallower-fr-fr');
    expect(r.modelFor('en-US')).toBe('soundswallower-en-us');
    expect(new OfflineRecognizer({ englishModel: 'pocketsphinx-en-us' }).modelFor(undefined)).toBe(
      'pocketsphinx-en-us',
    );
    expect(r.engine).toBe('soundswallower');
    expect(r.id).toBe('stt_vendor_1');
  });

  it('decodes off the main thread: the event loop keeps turning while an utterance is decoded', async () => {
    const recognizer = new OfflineRecognizer({ englishModel: 'soundswallower-en-us' });
    recognizers.push(recognizer);
    const pcm = concat(await spoken('four five six seven, one two three, eight nine'), silence(200));
    // Load the model first, so what follows is the decode alone.
    await recognizer.recognize({
      pcm: silence(300),
      sampleRate: 16000,
      signal: new AbortController().signal,
    });
    let turns = 0;
    let spinning = true;
    const spin = (): void => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const result = await recognizer.recognize({
      pcm,
      sampleRate: 16000,
      hints: DIGITS,
      signal: new AbortController().signal,
    });
    spinning = false;
    expect(result.text).not.toBe('');
    // A decode on the main thread would leave no turn between its start and its end.
    expect(turns).toBeGreaterThan(5);
  });

  it("drops an aborted utterance from the decoder's queue at once: a hung-up call's audio is never decoded", async () => {
    const recognizer = new OfflineRecognizer({ englishModel: 'soundswallower-en-us' });
    recognizers.push(recognizer);
    const pcm = concat(await spoken('four five six seven'), silence(200));
    const request = (signal: AbortSignal) =>
      recognizer.recognize({ pcm, sampleRate: 16000, hints: DIGITS, signal });
    // The model and its word list load first.
    await request(new AbortController().signal);
    const before = recognizer.stats.audioMs;
    const first = new AbortController();
    const second = new AbortController();
    const third = new AbortController();
    const a = request(first.signal);
    const b = request(second.signal);
    const c = request(third.signal);
    // Each job is queued once the (loaded) word list's promise has answered it.
    for (let i = 0; i < 50 && recognizer.backlog < 3; i++) await new Promise<void>((r) => setImmediate(r));
    expect(recognizer.backlog).toBe(3);
    second.abort(new Error('the caller hung up'));
    await expect(b).rejects.toThrow('the caller hung up');
    // Left the queue without waiting for the decode in progress.
    expect(recognizer.backlog).toBe(2);
    expect((await a).text).not.toBe('');
    expect((await c).text).not.toBe('');
    // Two decodes' worth of audio: the aborted one never reached the decoder.
    expect(recognizer.stats.audioMs - before).toBe((2 * pcm.length * 1000) / 16000);
    expect(recognizer.backlog).toBe(0);
  });

  it('refuses audio at another rate with a clear error', async () => {
    const recognizer = new OfflineRecognizer();
    await expect(
      recognizer.recognize({ pcm: silence(100), sampleRate: 8000, signal: new AbortController().signal }),
    ).rejects.toThrow(/16000 Hz/);
  });
});
