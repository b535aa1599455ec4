import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EspeakTtsProvider, espeakVoice } from './espeak.js';
import { TtsError } from './tts.types.js';

const fakeScript = fileURLToPath(new URL('./testing/fake-espeak.js', import.meta.url));

function fake(): { provider: EspeakTtsProvider; log: () => { args: string[]; text: string } } {
  const logPath = path.join(mkdtempSync(path.join(tmpdir(), 'espeak-')), 'log.json');
  const provider = new EspeakTtsProvider({
    command: process.execPath,
    commandArgs: [fakeScript, logPath],
    wordsPerMinute: 190,
  });
  return {
    provider,
    log: () => JSON.parse(readFileSync(logPath, 'utf8')) as { args: string[]; text: string },
  };
}

function iterate<T>(stream: AsyncIterable<T>): AsyncIterator<T> {
  return stream[Symbol.asyncIterator]();
}

async function all(stream: AsyncIterable<Int16Array>): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const c of stream) parts.push(c);
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('espeakVoice', () => {
  it('uses espeak-shaped voices, else the language, else the default', () => {
    expect(espeakVoice({ text: '', voice: 'en-us' })).toBe('en-us');
    expect(espeakVoice({ text: '', voice: 'en+f3' })).toBe('en+f3');
    expect(espeakVoice({ text: '', voice: '21m00Tcm4TlvDq8ikWAM', language: 'de-DE' })).toBe('de-de');
    expect(espeakVoice({ text: '', voice: '21m00Tcm4TlvDq8ikWAM' }, 'fr')).toBe('fr');
  });
});

describe('EspeakTtsProvider (through a stand-in program)', () => {
  it('reads the piped WAV, skips other chunks and converts 22050 Hz to 16 kHz', async () => {
    const { provider, log } = fake();
    const out = await all(provider.synthesize({ text: 'Hello there', voice: 'en-gb' }));
    // 11 characters × 20 ms = 220 ms = 3520 samples at 16 kHz (give or take the filter's edge).
    expect(Math.abs(out.length - 3520)).toBeLessThanOrEqual(2);
    expect(Math.max(...out)).toBeGreaterThan(9000);
    expect(log()).toEqual({ args: ['--stdout', '-v', 'en-gb', '-s', '190'], text: 'Hello there' });
    expect(provider.id).toBe('tts_vendor_1');
  });

  it('reports a failing program with its message', async () => {
    const { provider } = fake();
    const err = await all(provider.synthesize({ text: 'x', voice: 'zz' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TtsError);
    expect((err as Error).message).toMatch(/exited with 1: Error: voice "zz" does not exist/);
  });

  it('says how to install the program when it is missing', async () => {
    const provider = new EspeakTtsProvider({ command: 'espeak-ng-not-here-for-sure' });
    const err = await all(provider.synthesize({ text: 'x', voice: 'en' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TtsError', kind: 'config' });
    expect((err as Error).message).toMatch(/not installed/);
  });

  it('stops on abort with the signal reason', async () => {
    const { provider } = fake();
    const ctl = new AbortController();
    const it = iterate(
      provider.synthesize({ text: 'a long sentence '.repeat(50), voice: 'en', signal: ctl.signal }),
    );
    expect((await it.next()).done).toBe(false);
    ctl.abort(new Error('hangup'));
    await expect(
      (async () => {
        while (!(await it.next()).done);
      })(),
    ).rejects.toThrow('hangup');
  });
});

// The real engine: runs where espeak-ng is installed; under CI a missing binary fails the suite.
const installed = spawnSync('espeak-ng', ['--version']).status === 0;
describe.runIf(installed || Boolean(process.env.CI))('EspeakTtsProvider (espeak-ng itself)', () => {
  it('speaks a sentence as 16 kHz PCM', async () => {
    expect(installed, 'espeak-ng is not installed (apt-get install espeak-ng)').toBe(true);
    const out = await all(
      new EspeakTtsProvider().synthesize({ text: 'Thank you for calling.', voice: 'en' }),
    );
    expect(out.length).toBeGreaterThan(16000 * 0.5);
    expect(Math.max(...out.map(Math.abs))).toBeGreaterThan(1000);
  });
});
