// `hangup`: hangs up the line, then finishes the execution as `completed`.
import type { NodeDefinition } from '../node-types.js';

export const hangupNode: NodeDefinition = {
  type: 'hangup',
  run: async (ctx) => {
    await ctx.channel.hangup();
    return { handle: 'default', finish: { status: 'completed' } };
  },
};
