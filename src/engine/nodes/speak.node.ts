// `speak`: says a template (`text`) and leaves by `default` once played or barged into.
// `barge_in` (default true) lets user speech, text or a keypad digit cut the prompt short; digits
// pressed during it stay buffered for the next `dtmf` node.
import type { NodeDefinition } from '../node-types.js';
import { optBoolean, reqString } from './config.js';

export const speakNode: NodeDefinition = {
  type: 'speak',
  run: async (ctx, config, signal) => {
    const text = ctx.render(reqString(config, 'text'));
    await ctx.say(text, { bargeIn: optBoolean(config, 'barge_in') ?? true, signal });
    return { handle: 'default' };
  },
};
