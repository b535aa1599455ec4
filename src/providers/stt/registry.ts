// Builds the speech-to-text provider from Config (STT_VENDOR_1_API_KEY / _BASE_URL).
import type { Config } from '../../config/config.js';
import type { SttProvider } from './stt.types.js';
import { LiveSttProvider, type LiveSttOptions } from './vendor-1-deepgram.js';

export function createSttProvider(
  config: Pick<Config, 'providers'>,
  options: Omit<LiveSttOptions, 'apiKey' | 'baseUrl'> = {},
): SttProvider {
  const entry = config.providers.stt_vendor_1;
  return new LiveSttProvider({ ...options, apiKey: entry?.apiKey, baseUrl: entry?.baseUrl });
}
