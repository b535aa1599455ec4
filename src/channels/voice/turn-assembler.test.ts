import { describe, expect, it } from 'vitest';
import type { SttEvent } from '../../providers/stt/stt.types.js';
import { AudioTimeline } from './audio-timeline.js';
import { TurnAssembler } from './turn-assembler.js';

const interim = (text: string, startMs = 0, durationMs = 500): SttEvent => ({
  type: 'transcript',
  text,
  isFinal: false,
  speechFinal: false,
  confidence: 0.9,
  startMs,
  durationMs,
});
const final = (text: string, startMs: number, durationMs: number, speechFinal = false): SttEvent => ({
  type: 'transcript',
  text,
  isFinal: true,
  speechFinal,
  confidence: 0.9,
  startMs,
  durationMs,
});

describe('TurnAssembler', () => {
  it('joins the final spans of an utterance and ends it on speechFinal, at the last word', () => {
    const a = new TurnAssembler();
    expect(a.push({ type: 'speech_started', atMs: 100 })).toEqual({ speech: true, turn: null });
    expect(a.push(interim('I want'))).toEqual({ speech: true, turn: null });
    expect(a.push(final('I want a table', 100, 1100))).toEqual({ speech: true, turn: null });
    expect(a.hasWords).toBe(true);
    expect(a.push(final(' for two ', 1300, 500, true))).toEqual({
      speech: true,
      turn: { text: 'I want a table for two', endMs: 1800 },
    });
    expect(a.hasWords).toBe(false);
  });

  it('ignores empty interims and ends nothing on an empty speechFinal', () => {
    const a = new TurnAssembler();
    expect(a.push(interim('  '))).toEqual({ speech: false, turn: null });
    expect(a.push(final('', 0, 300, true))).toEqual({ speech: false, turn: null });
    expect(a.push({ type: 'utterance_end', lastWordEndMs: 0 })).toEqual({ speech: false, turn: null });
  });

  it('ends a turn on utterance_end when speechFinal never came', () => {
    const a = new TurnAssembler();
    a.push(final('yes please', 2000, 700));
    expect(a.push({ type: 'utterance_end', lastWordEndMs: 2650 })).toEqual({
      speech: false,
      turn: { text: 'yes please', endMs: 2700 },
    });
  });

  it('a cut keeps the interim words and drops the vendor finalising them later', () => {
    const a = new TurnAssembler();
    a.push(final('my number is', 0, 900));
    a.push(interim('four two', 900, 600));
    expect(a.cut(3000)).toEqual({ text: 'my number is four two', endMs: 1500 });
    expect(a.push(final('four two one', 900, 900, true))).toEqual({ speech: false, turn: null });
    expect(a.push(final('hello', 3200, 400, true)).turn).toEqual({ text: 'hello', endMs: 3600 });
    expect(new TurnAssembler().cut(0)).toBeNull();
  });
});

describe('AudioTimeline', () => {
  it('maps a session offset to when that audio arrived, never later than now', () => {
    const t = new AudioTimeline();
    expect(t.at(100, 50)).toBe(50);
    // Frames of 20 ms arriving at 20, 40, 60 … (each when its last sample was captured).
    for (let k = 1; k <= 10; k++) t.add(20, 1000 + 20 * k);
    expect(t.offsetMs).toBe(200);
    expect(t.at(200, 5000)).toBe(1200);
    expect(t.at(110, 5000)).toBe(1110);
    expect(t.at(0, 5000)).toBe(1000);
    expect(t.at(400, 1150)).toBe(1150);
  });
});
