import { describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from './espeak.js';
import { createTtsProvider } from './registry.js';
import { StreamingTtsProvider } from './vendor-1-elevenlabs.js';

describe('createTtsProvider', () => {
  it('uses the vendor adapter when a key is configured', () => {
    const p = createTtsProvider({ providers: { tts_vendor_1: { apiKey: 'k', baseUrl: undefined } } });
    expect(p).toBeInstanceOf(StreamingTtsProvider);
    expect((p as StreamingTtsProvider).baseUrl).toBe('https://api.elevenlabs.io');
  });

  it('uses a custom base URL even without a key (a compatible local server)', () => {
    const p = createTtsProvider({
      providers: { tts_vendor_1: { apiKey: undefined, baseUrl: 'http://127.0.0.1:9/v1/' } },
    });
    expect((p as StreamingTtsProvider).baseUrl).toBe('http://127.0.0.1:9');
  });

  it('falls back to the embedded espeak-ng engine under the same id when nothing is configured', () => {
    const p = createTtsProvider({ providers: {} });
    expect(p).toBeInstanceOf(EspeakTtsProvider);
    expect(p.id).toBe('tts_vendor_1');
  });
});
