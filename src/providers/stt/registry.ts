// Builds the speech-to-text provider from Config, as the TTS registry does for speech out:
//   - stt_vendor_1 with a key or base URL: its protocol (STT_VENDOR_1_PROTOCOL) — the Deepgram-style
//     live WebSocket, or OpenAI-compatible transcriptions per utterance (behind the VAD);
//   - neither: the embedded recogniser (soundswallower), so a fresh install hears callers too.
// Both per-utterance kinds keep the id stt_vendor_1 and say what recognises in `engine`.
import type { Config } from '../../config/config.js';
import type { Clock } from '../../shared/clock.js';
import { OfflineRecognizer, type OfflineRecognizerOptions } from './offline/offline-recognizer.js';
import type { SttProvider } from './stt.types.js';
import { UtteranceSttProvider } from './utterance-session.js';
import { LiveSttProvider, type LiveSttOptions } from './vendor-1-deepgram.js';
import { OpenAiTranscriptionRecognizer } from './vendor-1-openai.js';

export type SttConfig = Pick<Config, 'providers'> & Partial<Pick<Config, 'speech'>>;

export interface CreateSttOptions extends Omit<LiveSttOptions, 'apiKey' | 'baseUrl'> {
  clock?: Clock;
  offline?: OfflineRecognizerOptions;
}

/** Whether stt_vendor_1 names a vendor (a key or a base URL); otherwise the embedded one answers. */
export function sttVendorConfigured(config: SttConfig): boolean {
  const entry = config.providers.stt_vendor_1;
  return Boolean(entry?.apiKey || entry?.baseUrl);
}

export function createSttProvider(config: SttConfig, options: CreateSttOptions = {}): SttProvider {
  const entry = config.providers.stt_vendor_1;
  const { offline, ...live } = options;
  const model = config.speech?.sttModel;
  if (!sttVendorConfigured(config)) {
    return new UtteranceSttProvider(
      new OfflineRecognizer(offline),
      options.clock ? { clock: options.clock } : {},
    );
  }
  if (config.speech?.sttProtocol === 'openai') {
    const recognizer = new OpenAiTranscriptionRecognizer({
      apiKey: entry?.apiKey,
      baseUrl: entry?.baseUrl,
      ...(model ? { model } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    return new UtteranceSttProvider(recognizer, options.clock ? { clock: options.clock } : {});
  }
  return new LiveSttProvider({
    ...(model ? { model } : {}),
    ...live,
    apiKey: entry?.apiKey,
    baseUrl: entry?.baseUrl,
  });
}
