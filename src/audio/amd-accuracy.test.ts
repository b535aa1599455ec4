// The detection table in docs/calls.md comes from this test: the three ways of answering, spoken
// by several espeak-ng voices at two speeds, after a short and a long pause. It prints the table
// (accuracy and time to a verdict per case) and holds the accuracy to what the docs say.
import { describe, expect, it } from 'vitest';
import { VOICEMAIL_TEXT } from '../../test/support/amd-audio.js';
import { concat, frames, noise, silence, spoken, tone } from '../../test/support/generated-audio.js';
import { AnsweringMachineDetector } from './amd.js';
import { BeepDetector } from './beep.js';

const VOICES = ['en', 'en-us', 'en+f3', 'en-us+m3', 'en+f2'];
const HUMAN_LINES = ['Hello?', 'Hello, Sam speaking.', 'Yes?', 'Hi, who is this?'];
const LEADS = [200, 1200];

describe('answering-machine detection, accuracy table', () => {
  it('classifies generated answers', async () => {
    const rows: Record<string, { right: number; total: number; ms: number[] }> = {
      human: { right: 0, total: 0, ms: [] },
      machine: { right: 0, total: 0, ms: [] },
      silence: { right: 0, total: 0, ms: [] },
      beep: { right: 0, total: 0, ms: [] },
    };
    const score = (row: string, ok: boolean, ms: number) => {
      rows[row]!.total++;
      if (ok) rows[row]!.right++;
      rows[row]!.ms.push(ms);
    };
    const floor = (seed: number) => noise(60_000 / 10, 60, seed); // faint line noise, 6 s
    for (const voice of VOICES) {
      for (const lead of LEADS) {
        for (const line of HUMAN_LINES) {
          const pcm = concat(silence(lead), await spoken(line, voice), silence(4000));
          const amd = new AnsweringMachineDetector({ sampleRate: 16000 });
          for (const f of frames(mix(pcm, floor(lead)))) if (amd.push(f)) break;
          score('human', amd.verdict?.answeredBy === 'human', amd.verdict?.atMs ?? Infinity);
        }
        const greeting = concat(silence(lead), await spoken(VOICEMAIL_TEXT, voice), silence(500));
        const machine = concat(greeting, tone(1000, 400), silence(2000));
        const amd = new AnsweringMachineDetector({ sampleRate: 16000 });
        const beep = new BeepDetector({ sampleRate: 16000 });
        let beepAt = Infinity;
        for (const f of frames(mix(machine, floor(lead + 1)))) {
          amd.push(f);
          if (beep.push(f)) {
            beepAt = beep.beep!.endMs;
            break;
          }
        }
        score('machine', amd.verdict?.answeredBy === 'machine', amd.verdict?.atMs ?? Infinity);
        const greetingMs = greeting.length / 16;
        score('beep', beepAt >= greetingMs && beepAt <= greetingMs + 500, beepAt - greetingMs);
      }
      const quiet = new AnsweringMachineDetector({ sampleRate: 16000 });
      for (const f of frames(mix(silence(6000), floor(7)))) if (quiet.push(f)) break;
      score('silence', quiet.verdict?.answeredBy === 'unknown', quiet.verdict?.atMs ?? Infinity);
    }
    const lines = ['| answer | right | median ms | worst ms |', '|---|---|---|---|'];
    for (const [name, r] of Object.entries(rows)) {
      const sorted = [...r.ms].sort((a, b) => a - b);
      lines.push(
        `| ${name} | ${r.right}/${r.total} | ${Math.round(sorted[sorted.length >> 1]!)} | ${Math.round(sorted.at(-1)!)} |`,
      );
    }
    console.log(lines.join('\n'));
    expect(rows.human!.right / rows.human!.total).toBeGreaterThanOrEqual(0.9);
    expect(rows.machine!.right).toBe(rows.machine!.total);
    expect(rows.silence!.right).toBe(rows.silence!.total);
    expect(rows.beep!.right).toBe(rows.beep!.total);
  }, 120_000);
});

function mix(a: Int16Array, b: Int16Array): Int16Array {
  return Int16Array.from(a, (v, i) => Math.max(-32768, Math.min(32767, v + (b[i % b.length] ?? 0))));
}
