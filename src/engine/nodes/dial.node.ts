// `dial`: places an outbound call leg to `to` (template: tel:<E164>, sip:user@host or an E.164
// number) from `from` (template, a registered number), ringing up to `ring_timeout_seconds`
// (default 30). Leaves by the outcome: `answered`, `no_answer`, `busy` or `failed` (also for a
// destination of another form). The new leg's call id goes to `save_call_id_to` when given, and
// why it was not answered to `dial_failure_reason`. On the text channel the outcome is the
// session's simulated `dial` outcome (default answered).
import type { NodeDefinition } from '../node-types.js';
import { optString, secondsToMs } from './config.js';
import { normalizeDestination } from './destination.js';

export const DEFAULT_RING_TIMEOUT_SECONDS = 30;

export const dialNode: NodeDefinition = {
  type: 'dial',
  needs: ['telephony'],
  unsupported: { handle: 'failed', outputs: { dial_failure_reason: 'channel_unsupported' } },
  run: async (ctx, config, signal) => {
    const destination = normalizeDestination(ctx.render(optString(config, 'to') ?? ''));
    if (!destination) return { handle: 'failed', outputs: { dial_failure_reason: 'invalid_destination' } };
    const from = optString(config, 'from');
    const outcome = await ctx.channel.dial(destination, {
      signal,
      timeoutMs: secondsToMs(config, 'ring_timeout_seconds', DEFAULT_RING_TIMEOUT_SECONDS),
      ...(from !== undefined ? { from: ctx.render(from) } : {}),
    });
    const saveTo = optString(config, 'save_call_id_to');
    const outputs: Record<string, unknown> = {};
    if (saveTo && outcome.callId) outputs[saveTo] = outcome.callId;
    if (outcome.status !== 'answered') outputs.dial_failure_reason = outcome.reason ?? outcome.status;
    return { handle: outcome.status, ...(Object.keys(outputs).length > 0 ? { outputs } : {}) };
  },
};
