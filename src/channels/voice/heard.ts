// How much of an interrupted prompt the caller heard, as the realtime frames and the transcript
// show it. An estimate: the share of the speech's audio that had gone out when the caller cut in,
// applied to the text's characters (speech runs at a roughly even pace per character), then cut
// back to the last whole word so a half-played word counts as not heard. Unknown while the
// provider was still making the speech: its full length, and so the share, is not known then.
import type { PlaybackProgress } from './playback.js';

/** Characters of `text` the caller heard (a prefix ending on a whole word), or undefined when unknown. */
export function heardChars(text: string, progress: PlaybackProgress): number | undefined {
  if (!progress.synthesized || progress.sentMs === null || progress.queuedMs <= 0) return undefined;
  const share = Math.min(1, progress.sentMs / progress.queuedMs);
  if (share >= 1) return text.length;
  const cut = Math.floor(text.length * share);
  // The word running across the cut was not heard whole.
  const wordEnd = /\s/.test(text[cut] ?? ' ') ? cut : text.lastIndexOf(' ', cut);
  return wordEnd <= 0 ? 0 : text.slice(0, wordEnd).trimEnd().length;
}
