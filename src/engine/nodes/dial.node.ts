// `dial`: places an outbound call leg to `to` (template: tel:<E164>, sip:user@host or an E.164
// number) from `from` (template, a registered number), ringing up to `ring_timeout_seconds`
// (default 30). Leaves by the outcome: `answered`, `no_answer`, `busy` or `failed` (also for a
// destination of another form). The new leg's call id goes to `save_call_id_to` when given, and
// why it was not answered to `dial_failure_reason`. On the text channel the outcome is the
// session's simulated `dial` outcome (default answered).
// Keys the dialled party presses while bridged are reported as `dial.dtmf` events (a browser sees
// them as `dial_dtmf` frames); they are not the workflow's input.
// With `machine_detection` the leg's first seconds go through answering-machine detection before
// it is bridged: a machine is hung up and the node leaves by `failed`; a person (or no verdict) is
// bridged. The verdict (human, machine, unknown) goes to `save_answered_by_to` when given.
import type { NodeDefinition } from '../node-types.js';
import { optBoolean, optString, secondsToMs } from './config.js';
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
      ...(optBoolean(config, 'machine_detection') ? { machineDetection: true } : {}),
      onPartyDigit: (digit, callId) =>
        ctx.emit({ type: 'dial.dtmf', digits: digit, call_id: callId, node_id: ctx.nodeId }),
    });
    const outputs: Record<string, string> = {};
    const saveTo = optString(config, 'save_call_id_to');
    if (saveTo && outcome.callId) outputs[saveTo] = outcome.callId;
    const saveAnsweredBy = optString(config, 'save_answered_by_to');
    if (saveAnsweredBy && outcome.answeredBy) outputs[saveAnsweredBy] = outcome.answeredBy;
    if (outcome.status !== 'answered') outputs.dial_failure_reason = outcome.reason ?? outcome.status;
    return { handle: outcome.status, ...(Object.keys(outputs).length ? { outputs } : {}) };
  },
};
