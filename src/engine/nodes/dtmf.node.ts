// `dtmf` (Collect DTMF, docs/workflow-nodes.md): says `prompt` (barge-in on), then collects keypad digits into
// `save_to_variable`. Collection ends when `num_digits` digits have arrived (→ success), the
// `terminator` key (default #, also named `pound`; "" for none) is pressed (→ success; it is not saved), or
// `timeout_seconds` (default 5) of silence pass after the prompt or the last key (→ timeout; the
// digits collected so far are saved, and a node without num_digits that got at least one digit
// leaves by success). Digits pressed during the prompt, or before the node started, are buffered
// by the channel and count.
import type { NodeDefinition } from '../node-types.js';
import { terminatorKey } from '../../workflow/terminator.js';
import { optNumber, optString, reqString, secondsToMs } from './config.js';

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
    if (prompt) await ctx.say(ctx.render(prompt), { bargeIn: true, signal });

    let digits = '';
    let handle: 'success' | 'timeout' = 'timeout';
    for (;;) {
      // The timeout is silence: it starts when the prompt ends and again after every key, so a
      // caller typing a long number slowly is not cut off.
      const key = await ctx.channel.nextDigit({ signal, timeoutMs });
      if (key === null) break;
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
    ctx.emit({ type: 'dtmf', digits, node_id: ctx.nodeId });
    return { handle, outputs: { [saveTo]: digits } };
  },
};
