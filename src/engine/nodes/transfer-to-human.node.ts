// `transfer_to_human` (warm transfer, docs/workflow-nodes.md): dials `destination` (template) as a new leg, plays
// `announcement` (template, optional) to the human, then bridges; the human's phone rings up to
// `ring_timeout_seconds` (default 30). Success finishes the execution as
// `transferred`; a human who does not answer (or a destination that is not tel:/sip:) leaves by
// `failed`, with the reason in the `transfer_failure_reason` variable. With `machine_detection`
// the human's first seconds go through answering-machine detection before the announcement: a
// machine is hung up and the node leaves by `failed` with the reason `machine`.
import type { NodeDefinition } from '../node-types.js';
import { optBoolean, optString, secondsToMs } from './config.js';
import { normalizeDestination } from './destination.js';

export const transferToHumanNode: NodeDefinition = {
  type: 'transfer_to_human',
  needs: ['telephony'],
  unsupported: { handle: 'failed', outputs: { transfer_failure_reason: 'channel_unsupported' } },
  run: async (ctx, config, signal) => {
    const destination = normalizeDestination(ctx.render(optString(config, 'destination') ?? ''));
    if (!destination) {
      return { handle: 'failed', outputs: { transfer_failure_reason: 'invalid_destination' } };
    }
    const announcement = optString(config, 'announcement');
    const outcome = await ctx.channel.transfer(destination, {
      mode: 'warm',
      signal,
      timeoutMs: secondsToMs(config, 'ring_timeout_seconds', 30),
      ...(announcement ? { announcement: ctx.render(announcement) } : {}),
      ...(optBoolean(config, 'machine_detection') ? { machineDetection: true } : {}),
    });
    if (outcome.status === 'success') {
      return { handle: 'success', finish: { status: 'transferred', destination, mode: 'warm' } };
    }
    return { handle: 'failed', outputs: { transfer_failure_reason: outcome.reason ?? 'failed' } };
  },
};
