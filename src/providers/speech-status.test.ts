import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { programExists, speechStatus } from './speech-status.js';

describe('speechStatus', () => {
  it('reports espeak-ng and the embedded recogniser on a fresh install', () => {
    expect(speechStatus(loadConfig({}), () => true)).toEqual({
      output: { provider: 'tts_vendor_1', engine: 'espeak-ng', available: true },
      input: { provider: 'stt_vendor_1', engine: 'soundswallower', available: true },
    });
  });

  it('reports speech output unavailable, with the install command, when the program is missing', () => {
    const status = speechStatus(loadConfig({ ESPEAK_NG_COMMAND: '/nonexistent/espeak-ng' }));
    expect(status.output).toEqual({
      provider: 'tts_vendor_1',
      engine: 'espeak-ng',
      available: false,
      detail: '/nonexistent/espeak-ng is not installed (apt-get install espeak-ng)',
    });
  });

  it('does not look for espeak-ng when a vendor speaks, and names no engine for configured vendors', () => {
    const status = speechStatus(
      loadConfig({ TTS_VENDOR_1_API_KEY: 'k', STT_VENDOR_1_API_KEY: 'k', ESPEAK_NG_COMMAND: '/nonexistent' }),
    );
    expect(status.output).toEqual({ provider: 'tts_vendor_1', engine: null, available: true });
    expect(status.input.engine).toBeNull();
  });

  it('finds programs by path or on PATH', () => {
    expect(programExists(process.execPath)).toBe(true);
    expect(programExists('node', `/nonexistent:${process.execPath.replace(/\/node$/, '')}`)).toBe(true);
    expect(programExists('espeak-ng', '/nonexistent')).toBe(false);
  });
});
