// The three ways an outbound call is answered, as audio made on the spot (16 kHz): a person
// ("Hello?", then waiting), a voicemail greeting that ends in a beep, and dead air. Answering-
// machine detection is tested on these in unit tests and, played by sipp, over real RTP.
import { concat, silence, spoken, tone } from './generated-audio.js';

export const VOICEMAIL_TEXT =
  "Hi, you have reached Sam Jones. I can't take your call right now. Please leave your name and number after the tone.";

export interface AnsweringCase {
  name: 'human' | 'machine' | 'silence';
  expected: 'human' | 'machine' | 'unknown';
  pcm: Int16Array;
}

/** Each case starts after `leadMs` of silence (the pause between the answer and the first word). */
export async function answeringCases(leadMs = 300): Promise<AnsweringCase[]> {
  return [
    { name: 'human', expected: 'human', pcm: concat(silence(leadMs), await spoken('Hello?'), silence(5000)) },
    {
      name: 'machine',
      expected: 'machine',
      pcm: concat(
        silence(leadMs),
        await spoken(VOICEMAIL_TEXT),
        silence(400),
        tone(1000, 500),
        silence(3000),
      ),
    },
    { name: 'silence', expected: 'unknown', pcm: silence(6000) },
  ];
}
