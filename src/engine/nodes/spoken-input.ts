// What a keypad node hears on a line where the user speaks: the next key or the next spoken turn,
// whichever comes first, and what a spoken turn means (a number, or an answer).
//
// The listen asks for digits (`hints.digits`); the node context adds the words the conditions
// after the node look for, and recognisers with grammars (the embedded one) then hear
// "[lead] (yes | no | those words | digits) [tail]". Vendors hear everything and may punctuate
// ("Yes, please."), so the answer is read from the words, not taken verbatim.
import type { NodeContext } from '../node-types.js';

export type KeypadInput = { kind: 'key'; key: string } | { kind: 'speech'; text: string };

/** Polite words around an answer, dropped from it ("yes please" is "yes"). */
const POLITE =
  /^(?:(?:i want to|i want|i'd like to|i'd like|i would like to|i would like|please|um|uh|oh|well)\s+)+|(?:\s+(?:please|thanks|thank you|thank you very much))+$/;

/** A spoken answer as a condition reads it: lower case, no punctuation, no polite words. */
export function spokenAnswer(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return words.replace(POLITE, '').trim();
}

/**
 * The next key, or (with `speech`) the next spoken turn, whichever comes first; null when
 * `timeoutMs` of silence passed on both. The listen's timeout restarts while the user is heard,
 * so a number being spoken when the keypad's timeout runs out is still waited for. A recogniser
 * that fails leaves the keypad working: its error counts as silence.
 */
export async function nextInput(
  ctx: NodeContext,
  options: { signal: AbortSignal; timeoutMs: number; speech: boolean },
): Promise<KeypadInput | null> {
  const { signal, timeoutMs } = options;
  if (!options.speech) {
    const key = await ctx.channel.nextDigit({ signal, timeoutMs });
    return key === null ? null : { kind: 'key', key };
  }
  const round = new AbortController();
  const onAbort = (): void => round.abort(signal.reason);
  signal.throwIfAborted();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<KeypadInput | null>((resolve, reject) => {
      let silent = 0;
      const quiet = (): void => {
        if (++silent === 2) resolve(null);
      };
      ctx.channel
        .nextDigit({ signal: round.signal, timeoutMs })
        .then((key) => (key === null ? quiet() : resolve({ kind: 'key', key })), reject);
      ctx.listen({ signal: round.signal, timeoutMs, hints: { digits: true } }).then(
        (turn) => (turn === null ? quiet() : resolve({ kind: 'speech', text: turn.text })),
        (err: unknown) => (signal.aborted ? reject(err) : quiet()),
      );
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    round.abort();
  }
}
