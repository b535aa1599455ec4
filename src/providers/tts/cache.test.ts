import { describe, expect, it } from 'vitest';
import { CachingTtsProvider } from './cache.js';
import { TtsError, type TtsProvider, type TtsRequest } from './tts.types.js';

/** Speaks one sample per character, in chunks of two, counting its calls. */
class CountingTts implements TtsProvider {
  readonly id = 'tts_vendor_1';
  calls = 0;
  failOn?: string;

  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    this.calls++;
    const samples = Int16Array.from([...request.text].map((c) => c.charCodeAt(0)));
    for (let i = 0; i < samples.length; i += 2) {
      if (this.failOn !== undefined && i >= 2) throw new TtsError('vendor down', this.id, 'network');
      yield samples.slice(i, i + 2);
    }
  }
}

async function collect(it: AsyncIterable<Int16Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of it) out.push(...chunk);
  return out;
}

const req = (text: string, extra: Partial<TtsRequest> = {}): TtsRequest => ({ text, voice: 'en', ...extra });
const codes = (text: string) => [...text].map((c) => c.charCodeAt(0));

describe('CachingTtsProvider', () => {
  it('synthesises a prompt once and replays the same audio afterwards', async () => {
    const inner = new CountingTts();
    const tts = new CachingTtsProvider(inner);
    expect(await collect(tts.synthesize(req('hello')))).toEqual(codes('hello'));
    expect(await collect(tts.synthesize(req('hello')))).toEqual(codes('hello'));
    expect(inner.calls).toBe(1);
    expect([tts.hits, tts.misses]).toEqual([1, 1]);
    expect(tts.id).toBe('tts_vendor_1');
  });

  it('keys on voice, language and rate as well as the text', async () => {
    const inner = new CountingTts();
    const tts = new CachingTtsProvider(inner);
    await collect(tts.synthesize(req('hi')));
    await collect(tts.synthesize(req('hi', { voice: 'de' })));
    await collect(tts.synthesize(req('hi', { language: 'en-GB' })));
    await collect(tts.synthesize(req('hi', { sampleRate: 8000 })));
    expect(inner.calls).toBe(4);
  });

  it('keeps nothing from a synthesis the listener stopped early (barge-in)', async () => {
    const inner = new CountingTts();
    const tts = new CachingTtsProvider(inner);
    for await (const chunk of tts.synthesize(req('interrupted'))) {
      expect(chunk.length).toBe(2);
      break;
    }
    expect(tts.size).toBe(0);
    expect(await collect(tts.synthesize(req('interrupted')))).toEqual(codes('interrupted'));
    expect(inner.calls).toBe(2);
  });

  it('keeps nothing from a failed synthesis and passes the error on', async () => {
    const inner = new CountingTts();
    inner.failOn = 'x';
    const tts = new CachingTtsProvider(inner);
    await expect(collect(tts.synthesize(req('broken')))).rejects.toThrow(TtsError);
    expect(tts.size).toBe(0);
  });

  it('refuses an aborted request before synthesising', async () => {
    const inner = new CountingTts();
    const tts = new CachingTtsProvider(inner);
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(collect(tts.synthesize(req('x', { signal: ac.signal })))).rejects.toThrow('gone');
    expect(inner.calls).toBe(0);
  });

  it('evicts the least recently used prompt when over budget, and never keeps oversized ones', async () => {
    const inner = new CountingTts();
    // 8 bytes per 4-character prompt: room for two.
    const tts = new CachingTtsProvider(inner, { maxBytes: 16, maxEntryBytes: 8 });
    await collect(tts.synthesize(req('aaaa')));
    await collect(tts.synthesize(req('bbbb')));
    await collect(tts.synthesize(req('aaaa'))); // a hit: aaaa is now the most recent
    await collect(tts.synthesize(req('cccc'))); // evicts bbbb
    expect(tts.size).toBe(16);
    const before = inner.calls;
    await collect(tts.synthesize(req('aaaa')));
    expect(inner.calls).toBe(before);
    await collect(tts.synthesize(req('bbbb')));
    expect(inner.calls).toBe(before + 1);
    await collect(tts.synthesize(req('too long for an entry')));
    await collect(tts.synthesize(req('too long for an entry')));
    expect(inner.calls).toBe(before + 3);
  });
});
