// `dtmf` (Collect DTMF, docs/workflow-nodes.md): says `prompt` (barge-in on), then collects keypad digits into
// `save_to_variable`. Collection ends when `num_digits` digits have arrived (→ success), the
// `terminator` key (default #, also named `pound`; "" for none) is pressed (→ success; it is not saved), or
// `timeout_seconds` (default 5) of silence pass after the prompt or the last key (→ timeout; the
// digits collected so far are saved, and a node without num_digits that got at least one digit
// leaves by success). Digits pressed during the prompt, or before the node started, are buffered
// by the channel and count. The keys pressed (the terminator too) go on the `dtmf` event as `keys`,
// which the transcript records as the caller's turn.
//
// On a line where the user speaks (phone, web voice) the node also listens, unless `speech` is
// false: a spoken number ("four five six") counts as those keys, and a spoken answer with no
// digit in it ("yes", or a word a condition after the node looks for) is saved as said and
// leaves by success, so "press 1 or say yes" is one node and a condition. Recognisers with
// grammars hear digits and those words (spoken-input.ts says how).
import type { NodeDefinition } from '../node-types.js';
import { terminatorKey } from '../../workflow/terminator.js';
import { optBoolean, optNumber, optString, reqString, secondsToMs } from './config.js';
import { extractDigits } from '../workflow-deps.js';
import { nextInput, spokenAnswer } from './spoken-input.js';

export const DEFAULT_DTMF_TIMEOUT_SECONDS = 5;

export const dtmfNode: NodeDefinition = {
  type: 'dtmf',
  needs: ['dtmf'],
  run: async (ctx, config, signal) => {
    const saveTo = reqString(config, 'save_to_variable');
    const numDigits = optNumber(config, 'num_digits');
    const terminator = terminatorKey(optString(config, 'terminator') ?? '#') ?? '#';
    const timeoutMs = secondsToMs(config, 'timeout_seconds', DEFAULT_DTMF_TIMEOUT_SECONDS);
    const prompt = optString(config, 'prompt');
    const hearSpeech = ctx.channel.capabilities.speech === true && optBoolean(config, 'speech') !== false;
    if (prompt) await ctx.say(ctx.render(prompt), { bargeIn: true, signal });

    let digits = '';
    // The keys as pressed (the terminator too), for the transcript; spoken digits are there already.
    let keys = '';
    const pressed = (): { keys?: string } => (keys === '' ? {} : { keys });
    let handle: 'success' | 'timeout' = 'timeout';
    for (;;) {
      // The timeout is silence: it starts when the prompt ends and again after every key, so a
      // caller typing a long number slowly is not cut off.
      const input = await nextInput(ctx, { signal, timeoutMs, speech: hearSpeech });
      if (input === null) break;
      if (input.kind === 'speech') {
        // The digits the turn holds ("four five six" → 456), or "" when it holds none.
        const said = extractDigits(input.text);
        if (said === '') {
          const answer = spokenAnswer(input.text);
          // A word answers the question only before any digit; mid-number it is noise.
          if (answer === '' || digits !== '') continue;
          ctx.emit({ type: 'dtmf', digits: '', ...pressed(), node_id: ctx.nodeId });
          return { handle: 'success', outputs: { [saveTo]: answer } };
        }
        digits += said;
        // A spoken number is a whole answer: without num_digits it ends collection.
        if (numDigits === undefined || digits.length >= numDigits) {
          if (numDigits !== undefined) digits = digits.slice(0, numDigits);
          handle = 'success';
          break;
        }
        continue;
      }
      const key = input.key;
      keys += key;
      if (terminator !== '' && key === terminator) {
        handle = 'success';
        break;
      }
      digits += key;
      if (numDigits !== undefined && digits.length >= numDigits) {
        handle = 'success';
        break;
      }
    }
    if (handle === 'timeout' && numDigits === undefined && digits !== '') handle = 'success';
    ctx.emit({ type: 'dtmf', digits, ...pressed(), node_id: ctx.nodeId });
    return { handle, outputs: { [saveTo]: digits } };
  },
};
