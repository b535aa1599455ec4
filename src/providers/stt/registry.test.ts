import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { createSttProvider, sttVendorConfigured } from './registry.js';
import { UtteranceSttProvider } from './utterance-session.js';
import { LiveSttProvider } from './vendor-1-deepgram.js';

describe('createSttProvider', () => {
  it('stands the embedded recogniser in for stt_vendor_1 when no key or base URL is set', () => {
    const config = loadConfig({});
    expect(sttVendorConfigured(config)).toBe(false);
    const p = createSttProvider(config);
    expect(p).toBeInstanceOf(UtteranceSttProvider);
    expect(p.id).toBe('stt_vendor_1');
    expect(p.engine).toBe('soundswallower');
  });

  it('speaks the Deepgram-style WebSocket by default, and OpenAI transcriptions when told to', () => {
    const live = createSttProvider(loadConfig({ STT_VENDOR_1_API_KEY: 'k', STT_VENDOR_1_MODEL: 'nova-2' }));
    expect(live).toBeInstanceOf(LiveSttProvider);
    expect((live as LiveSttProvider).listenUrl()).toContain('model=nova-2');
    const openai = createSttProvider(
      loadConfig({ STT_VENDOR_1_BASE_URL: 'http://127.0.0.1:9000', STT_VENDOR_1_PROTOCOL: 'openai' }),
    );
    expect(openai).toBeInstanceOf(UtteranceSttProvider);
    expect(openai.id).toBe('stt_vendor_1');
    expect(openai.engine).toBeUndefined();
  });

  it('refuses an unknown protocol at start', () => {
    expect(() => loadConfig({ STT_VENDOR_1_PROTOCOL: 'grpc' })).toThrow(
      /STT_VENDOR_1_PROTOCOL must be one of deepgram, openai/,
    );
  });
});
