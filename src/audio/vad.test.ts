import { describe, expect, it } from 'vitest';
import { concat, dtmfTone, frames, mix, noise, silence, spoken } from '../../test/support/generated-audio.js';
import { EnergyVad, type VadEvent } from './vad.js';

function run(pcm: Int16Array, options: Partial<ConstructorParameters<typeof EnergyVad>[0]> = {}): VadEvent[] {
  const vad = new EnergyVad({ sampleRate: 16000, ...options });
  const events: VadEvent[] = [];
  for (const f of frames(pcm)) events.push(...vad.push(f));
  return events;
}

describe('EnergyVad', () => {
  it('finds one utterance of espeak-ng speech between silences, with its start and end', async () => {
    const words = await spoken('please transfer me to billing');
    const events = run(concat(silence(1000), words, silence(1500)));
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    const speechMs = (words.length / 16000) * 1000;
    expect(events[0]!.atMs).toBeGreaterThanOrEqual(1000);
    expect(events[0]!.atMs).toBeLessThan(1200);
    expect(events[1]!.atMs).toBeGreaterThan(1000 + speechMs - 300);
    expect(events[1]!.atMs).toBeLessThanOrEqual(1000 + speechMs + 20);
  });

  it('reports the end only after the hangover of quiet, so pauses between words do not split a turn', async () => {
    const yes = await spoken('yes');
    // espeak-ng ends a word with some quiet of its own: the gap is that plus 100 ms.
    const two = concat(silence(500), yes, silence(100), yes, silence(1500));
    expect(run(two, { hangoverMs: 1000 }).map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    expect(run(two, { hangoverMs: 200 }).map((e) => e.type)).toEqual([
      'speech_start',
      'speech_end',
      'speech_start',
      'speech_end',
    ]);
  });

  it('hears nothing in silence, steady hiss or keypad tones', () => {
    expect(run(silence(3000))).toEqual([]);
    expect(run(concat(silence(500), noise(3000, 3000)))).toEqual([]);
    expect(run(concat(silence(500), noise(3000, 12000, 7)))).toEqual([]);
    const keys = concat(silence(500), ...[...'123456789*0#'].flatMap((k) => [dtmfTone(k, 120), silence(80)]));
    expect(run(keys)).toEqual([]);
  });

  it('still finds speech over background noise once the floor has adapted to it', async () => {
    const words = await spoken('yes please');
    const bed = noise(1000 + words.length / 16 + 1500, 600, 3);
    const events = run(mix(bed, concat(silence(1000), words)));
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    expect(events[0]!.atMs).toBeGreaterThanOrEqual(900);
  });

  it('takes audio in pieces of any size', async () => {
    const pcm = concat(silence(400), await spoken('no'), silence(800));
    const vad = new EnergyVad({ sampleRate: 16000 });
    const events: VadEvent[] = [];
    for (let i = 0; i < pcm.length; i += 97) events.push(...vad.push(pcm.subarray(i, i + 97)));
    expect(events).toEqual(run(pcm));
    expect(vad.offsetMs).toBe(Math.floor(pcm.length / 320) * 20);
  });
});
