// Picks the TTS provider from Config: the tts_vendor_1 adapter when its key (or a custom base URL)
// is configured, otherwise the embedded espeak-ng engine, so speech works out of the box.
import type { Config } from '../../config/config.js';
import { EspeakTtsProvider, type EspeakOptions } from './espeak.js';
import type { TtsProvider } from './tts.types.js';
import { StreamingTtsProvider, type StreamingTtsOptions } from './vendor-1-elevenlabs.js';

export interface CreateTtsOptions {
  vendor?: Omit<StreamingTtsOptions, 'apiKey' | 'baseUrl'>;
  local?: EspeakOptions;
}

export function createTtsProvider(
  config: Pick<Config, 'providers'> & Partial<Pick<Config, 'speech'>>,
  options: CreateTtsOptions = {},
): TtsProvider {
  const entry = config.providers.tts_vendor_1;
  if (entry?.apiKey || entry?.baseUrl) {
    return new StreamingTtsProvider({ ...options.vendor, apiKey: entry.apiKey, baseUrl: entry.baseUrl });
  }
  const command = config.speech?.espeakCommand;
  return new EspeakTtsProvider({ ...(command ? { command } : {}), ...options.local });
}
