import { describe, expect, it } from 'vitest';
import { answeringCases, VOICEMAIL_TEXT } from '../../test/support/amd-audio.js';
import {
  concat,
  dtmfTone,
  frames,
  noise,
  silence,
  spoken,
  tone,
} from '../../test/support/generated-audio.js';
import { AnsweringMachineDetector, type AmdVerdict } from './amd.js';
import { BeepDetector } from './beep.js';

function detect(pcm: Int16Array): AmdVerdict | null {
  const amd = new AnsweringMachineDetector({ sampleRate: 16000 });
  for (const f of frames(pcm)) if (amd.push(f)) break;
  return amd.verdict;
}

describe('AnsweringMachineDetector', () => {
  it('tells a person, a voicemail greeting and dead air apart, within 4 s of audio', async () => {
    const cases = await answeringCases();
    const got = cases.map((c) => ({ name: c.name, verdict: detect(c.pcm) }));
    for (const [i, c] of cases.entries()) {
      expect(got[i]!.verdict?.answeredBy, c.name).toBe(c.expected);
      expect(got[i]!.verdict!.atMs).toBeLessThanOrEqual(4000);
    }
    expect(got[0]!.verdict!.cause).toBe('after_greeting_silence');
    expect(got[1]!.verdict!.cause).toMatch(/max_words|long_greeting/);
    expect(got[2]!.verdict!.cause).toBe('initial_silence');
  }, 30_000);

  it('a two-word answer is still a person; a long single utterance is a machine', async () => {
    expect(detect(concat(await spoken('Hello, Sam here.'), silence(2000)))?.answeredBy).toBe('human');
    expect(detect(concat(noise(3000, 3000), silence(1000)))?.answeredBy).toBe('machine');
  }, 30_000);

  it('gives up after the total time with unknown', () => {
    // Words of 200 ms with 60 ms gaps below the word limit (maxWords 100) never settle.
    const amd = new AnsweringMachineDetector({ sampleRate: 16000, maxWords: 100, greetingMs: 10_000 });
    let v: AmdVerdict | null = null;
    for (let i = 0; i < 40 && !v; i++) v = amd.push(concat(noise(200, 3000, i + 1), silence(60)));
    expect(v).toMatchObject({ answeredBy: 'unknown', cause: 'too_long', atMs: 4000 });
  });

  it('takes audio in any slicing', async () => {
    const [human] = await answeringCases();
    const amd = new AnsweringMachineDetector({ sampleRate: 16000 });
    for (let i = 0; i < human!.pcm.length && !amd.verdict; i += 77) amd.push(human!.pcm.subarray(i, i + 77));
    expect(amd.verdict).toEqual(detect(human!.pcm));
  });
});

describe('BeepDetector', () => {
  const find = (pcm: Int16Array) => {
    const d = new BeepDetector({ sampleRate: 16000 });
    for (const f of frames(pcm)) if (d.push(f)) break;
    return d.beep;
  };

  it('finds the beep at the end of a greeting, where it ends', async () => {
    const [, machine] = await answeringCases(0);
    const beep = find(machine!.pcm);
    const greetingMs = (await spoken(VOICEMAIL_TEXT)).length / 16;
    expect(beep).not.toBeNull();
    expect(beep!.frequencyHz).toBeGreaterThanOrEqual(975);
    expect(beep!.frequencyHz).toBeLessThanOrEqual(1025);
    expect(beep!.endMs - beep!.startMs).toBeGreaterThanOrEqual(460);
    expect(beep!.startMs).toBeGreaterThan(greetingMs);
  }, 30_000);

  it('finds beeps off the 25 Hz grid and at other pitches', () => {
    for (const hz of [440, 812, 1400, 2000]) {
      const beep = find(concat(silence(200), tone(hz, 300, 4000), silence(200)));
      expect(beep, `${hz} Hz`).not.toBeNull();
      expect(Math.abs(beep!.frequencyHz - hz)).toBeLessThanOrEqual(25);
    }
  });

  it('hears no beep in speech, noise, keypad tones, a short blip or silence', async () => {
    expect(find(await spoken('Hello, this is a test of speech with long vowels, ooooh, aaaah.'))).toBeNull();
    expect(find(noise(2000, 5000))).toBeNull();
    expect(find(concat(dtmfTone('5', 300), silence(200)))).toBeNull();
    expect(find(concat(silence(100), tone(1000, 100), silence(300)))).toBeNull();
    expect(find(silence(2000))).toBeNull();
  }, 30_000);
});
