// TTS → call media: streams a provider's PCM into CallMedia.play as it is synthesised (so the
// caller hears the first words while the rest is still being made), then waits on the injected
// clock until the send queue has drained. Aborting stops playback at once (stopPlayback) and
// abandons the synthesis; barge-in is an abort with a reason the channel recognises.
import { abortError } from '../channel.js';
import { CALL_PCM_RATE, type CallMedia } from '../call-media.js';
import type { TtsProvider } from '../../providers/tts/tts.types.js';
import type { Clock, TimerHandle } from '../../shared/clock.js';

export interface PlaybackDeps {
  clock: Clock;
  media: CallMedia;
  tts: TtsProvider;
}

export interface SpeechRequest {
  text: string;
  voice: string;
  language?: string;
  signal: AbortSignal;
  /** Once, when the first packet of the speech has left (see watchFirstPacket). */
  onFirstPacket?: (timing: { firstAudioAt: number; firstPacketAt: number }) => void;
  /** Kept up while the speech plays, so a barge-in can tell how much of it went out. */
  progress?: PlaybackProgress;
}

export interface PlaybackProgress {
  /** Milliseconds of speech queued so far. */
  queuedMs: number;
  /** True once the provider has made the whole text (the speech's length is known). */
  synthesized: boolean;
  /** Set when playback stops early: the milliseconds of it that had gone out. */
  sentMs: number | null;
}

/** Longest wait between two looks at the send queue (a queue emptied elsewhere is noticed soon). */
export const DRAIN_POLL_MAX_MS = 100;

/**
 * Plays `text` to the caller; resolves once all of it has been sent. Rejects with the signal's
 * reason when it aborts (playback stopped) and with the provider's error when synthesis fails
 * (playback stopped too: the node fails, and half a sentence is worse than none).
 */
export async function playSpeech(deps: PlaybackDeps, request: SpeechRequest): Promise<void> {
  const { media } = deps;
  const { signal } = request;
  if (signal.aborted) throw abortError(signal);
  const stop = (): void => {
    // What was queued and not sent yet is what the caller never hears.
    if (request.progress) request.progress.sentMs = Math.max(0, request.progress.queuedMs - media.queuedMs);
    media.stopPlayback();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    await pump(deps, request);
    await drained(deps.clock, media, signal);
  } catch (err) {
    // An abort has stopped playback already (at once, from its listener).
    if (signal.aborted) throw abortError(signal);
    media.stopPlayback();
    throw err;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * Copies the stream into the media. Each read races the abort, so a provider that ignores its
 * signal cannot hold a barged-in prompt open; its iterator is then told to return.
 */
async function pump(deps: PlaybackDeps, request: SpeechRequest): Promise<void> {
  const { signal } = request;
  if (!request.text.trim()) return;
  const stream = deps.tts.synthesize({
    text: request.text,
    voice: request.voice,
    ...(request.language !== undefined ? { language: request.language } : {}),
    sampleRate: CALL_PCM_RATE,
    signal,
  });
  const iterator = stream[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  let watch: { laterMs: number } | null = null;
  try {
    for (;;) {
      const step = await Promise.race([iterator.next(), aborted]);
      if (step.done) {
        if (request.progress) request.progress.synthesized = true;
        return;
      }
      if (signal.aborted) throw abortError(signal);
      const pcm = step.value;
      if (pcm.length === 0) continue;
      if (watch) watch.laterMs += (pcm.length * 1000) / CALL_PCM_RATE;
      else if (request.onFirstPacket) watch = watchFirstPacket(deps, signal, request.onFirstPacket);
      deps.media.play(pcm);
      if (request.progress) request.progress.queuedMs += (pcm.length * 1000) / CALL_PCM_RATE;
    }
  } catch (err) {
    // Ends the provider's stream (kills espeak-ng, drops the HTTP body); its own outcome is moot.
    iterator.return?.().catch(() => {});
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/** How often the send queue is looked at while waiting for the first packet to leave. */
const FIRST_PACKET_POLL_MS = 5;

/**
 * Reports when the first packet of the audio about to be queued has left. The media sends its
 * queue in order at a fixed pace, so that is when the queue holds less than it did right after
 * the first chunk was queued, plus the chunks queued since (`laterMs`, kept up by the caller).
 * The queue is looked at every few milliseconds, so the time is that close.
 */
function watchFirstPacket(
  deps: PlaybackDeps,
  signal: AbortSignal,
  report: (timing: { firstAudioAt: number; firstPacketAt: number }) => void,
): { laterMs: number } {
  const { clock, media } = deps;
  const firstAudioAt = clock.monotonic();
  const state = { laterMs: 0 };
  let queuedAfterFirst = -1;
  const check = (): void => {
    if (signal.aborted) return;
    const left = media.queuedMs;
    // The first look runs right after play() queued the first chunk.
    if (queuedAfterFirst < 0) queuedAfterFirst = left;
    if (left <= 0 || left < queuedAfterFirst + state.laterMs - 0.001) {
      report({ firstAudioAt, firstPacketAt: clock.monotonic() });
      return;
    }
    clock.setTimeout(check, FIRST_PACKET_POLL_MS);
  };
  queueMicrotask(check);
  return state;
}

function drained(clock: Clock, media: CallMedia, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let timer: TimerHandle | undefined;
    const onAbort = (): void => {
      if (timer) clock.clearTimeout(timer);
      reject(abortError(signal));
    };
    const check = (): void => {
      timer = undefined;
      const left = media.queuedMs;
      if (!(left > 0)) {
        signal.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = clock.setTimeout(check, Math.max(1, Math.min(Math.ceil(left), DRAIN_POLL_MAX_MS)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
