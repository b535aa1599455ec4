// A PhoneChannel on a fake call media, fake providers and a FakeClock, with the helpers its tests
// share (promise state without waiting, caller audio in real-time steps on the fake clock).
import { vi } from 'vitest';
import { PhoneChannel } from '../phone-channel.js';
import { FakeClock } from '../../shared/clock.js';
import { FakeCallControl, FakeCallMedia } from '../../../test/support/voice-media.js';
import {
  FakeSttProvider,
  FakeTtsProvider,
  type FakeTtsOptions,
} from '../../../test/support/voice-providers.js';

/** Lets every pending promise callback and immediate run; no time passes on the clock. */
export const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

export function setup(options: { tts?: FakeTtsOptions; stt?: boolean; endpointingMs?: number } = {}) {
  const clock = new FakeClock();
  const media = new FakeCallMedia(clock);
  const control = new FakeCallControl();
  const tts = new FakeTtsProvider(options.tts);
  const stt = options.stt === false ? null : new FakeSttProvider();
  const logger = { warn: vi.fn() };
  const channel = new PhoneChannel({
    clock,
    media,
    control,
    tts,
    voice: 'en-us',
    language: 'en-US',
    stt,
    logger,
    ...(options.endpointingMs !== undefined ? { endpointingMs: options.endpointingMs } : {}),
  });
  const ctl = new AbortController();
  return { clock, media, control, tts, stt: stt!, logger, channel, ctl, signal: ctl.signal };
}

/** A promise's state without waiting for it. */
export function track<T>(p: Promise<T>): { settled: () => boolean; value: () => T; error: () => unknown } {
  let state: { v?: T; e?: unknown; done: boolean } = { done: false };
  p.then(
    (v) => (state = { v, done: true }),
    (e: unknown) => (state = { e, done: true }),
  );
  return { settled: () => state.done, value: () => state.v as T, error: () => state.e };
}

/** Advances the clock in 20 ms steps, pushing one 20 ms frame of caller audio after each. */
export async function speakFrames(clock: FakeClock, media: FakeCallMedia, frames: number): Promise<void> {
  for (let i = 0; i < frames; i++) {
    clock.advance(20);
    media.pushAudio();
  }
  await drain();
}
