// Builds the JSGF grammar the embedded decoder listens with for one turn. A grammar decoder only
// hears what its grammar allows, so the grammar is made from what the listening node can act on:
//
//   public <turn> = [<lead>] (<phrase> | yes | no | <digits>) [<tail>];   a node expects something
//   public <turn> = <word>+;                                                the open fall-back
//
// <phrase> holds the node's phrases (an agent's exit names and their descriptions' key words, a
// condition's keywords), <digits> a number said digit by digit when the node expects one, and
// When the node expects nothing in particular, <open> alone: a vocabulary of everyday call words.
// The two are never mixed: measured on our test audio, offering the open loop beside the expected
// answers (even weighted 1000:1) let it win most turns and ruined the expected ones.
// Words the pronunciation dictionary lacks are left out (the decoder cannot hear them).
import type { SpeechHints } from '../stt.types.js';

export const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const YES_NO = ['yes', 'no'];
const LEAD = ['i want', 'i want to', "i'd like", 'i would like', 'please', 'yes', 'no'];
const TAIL = ['please', 'thanks', 'thank you'];

/** Everyday words of phone conversations: the open fall-back's vocabulary. */
export const COMMON_WORDS =
  `a about account address afternoon again agent all am an and answer any anything appointment
are as at available back bank be bill billing book booking but buy by call can cancel card change
check close code complaint confirm could customer date day delivery department do does
done down email evening for from get give go good goodbye has have hello help hi home hour
how human i if in information is it just know last later like line look make
manager me message minute more morning my name need new next no not now number of off okay
on one open operator or order other out password pay payment person phone please price problem
question refund repeat representative reservation right sales say schedule see service sir
so someone speak start status stop sure table talk team tell thank thanks that the there this
time to today tomorrow tonight transfer two understand up us wait want was we week what when
where which who why will with work would yeah yes you your`.split(/\s+/);

/** Lower-case words of a phrase: `talk_to_sales`, `talkToSales`, "Talk to sales!" → talk to sales. */
export function phraseWords(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z']+/g, ' ')
    .split(' ')
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w !== '');
}

/**
 * The grammar for a turn with these hints. `known` tells whether the dictionary has a word; a
 * phrase with an unknown word keeps its known words. With no phrases and no digits expected the
 * grammar is the open fall-back alone.
 */
export function buildGrammar(hints: SpeechHints | undefined, known: (word: string) => boolean): string {
  const phrases = new Set<string>();
  for (const p of hints?.phrases ?? []) {
    const words = phraseWords(p).filter(known);
    if (words.length > 0 && words.length <= 8) phrases.add(words.join(' '));
  }
  const expected = phrases.size > 0 || hints?.digits === true;
  const lines = ['#JSGF V1.0;', 'grammar turn;'];
  if (expected) {
    for (const w of YES_NO) phrases.add(w);
    const items = [...phrases];
    if (hints?.digits) items.push('<digits>');
    // Lead-in words only around phrases: before a number they turn into inserted words.
    const around = phrases.size > YES_NO.length;
    lines.push(
      around
        ? `public <turn> = [<lead>] (${items.join(' | ')}) [<tail>];`
        : `public <turn> = ${items.join(' | ')};`,
      `<lead> = ${LEAD.filter((p) => p.split(' ').every(known)).join(' | ')};`,
      `<tail> = ${TAIL.filter((p) => p.split(' ').every(known)).join(' | ')};`,
      `<digits> = (${DIGIT_WORDS.join(' | ')})+;`,
    );
  } else {
    const vocabulary = [...new Set([...COMMON_WORDS, ...DIGIT_WORDS])].filter(known);
    lines.push(`public <turn> = (${vocabulary.join(' | ')})+;`);
  }
  return lines.join('\n') + '\n';
}
