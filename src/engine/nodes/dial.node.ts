// `dial`: places an outbound call leg to `to` (template: tel:<E164>, sip:user@host or an E.164
// number) from `from` (template, a registered number), ringing up to `ring_timeout_seconds`
// (default 30). Leaves by the outcome: `answered`, `no_answer`, `busy` or `failed` (also for a
// destination of another form). The new leg's call id goes to `save_call_id_to` when given. On the
// text channel the outcome is the session's simulated `dial` outcome (default answered).
import type { NodeDefinition } from '../node-types.js';
import { optString, secondsToMs } from './config.js';
import { normalizeDestination } from './destination.js';

export const DEFAULT_RING_TIMEOUT_SECONDS = 30;

export const dialNode: NodeDefinition = {
  type: 'dial',
  needs: ['telephony'],
  unsupported: { handle: 'failed' },
  run: async (ctx, config, signal) => {
    const destination = normalizeDestination(ctx.render(optString(config, 'to') ?? ''));
    if (!destination) return { handle: 'failed' };
    const from = optString(config, 'from');
    const outcome = await ctx.channel.dial(destination, {
      signal,
      timeoutMs: secondsToMs(config, 'ring_timeout_seconds', DEFAULT_RING_TIMEOUT_SECONDS),
      ...(from !== undefined ? { from: ctx.render(from) } : {}),
    });
    const saveTo = optString(config, 'save_call_id_to');
    return {
      handle: outcome.status,
      ...(saveTo && outcome.callId ? { outputs: { [saveTo]: outcome.callId } } : {}),
    };
  },
};
