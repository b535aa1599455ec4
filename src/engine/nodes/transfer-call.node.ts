// `transfer_call` (blind transfer, docs/workflow-nodes.md): SIP REFER to `destination` (template); the service
// leaves the call and the execution finishes as `transferred`. A refused REFER (or a destination
// that is not tel:/sip:) leaves by `failed` when the graph has that edge, and fails the execution
// (no_edge) when it does not.
import type { NodeDefinition } from '../node-types.js';
import { optString } from './config.js';
import { normalizeDestination } from './destination.js';

export const transferCallNode: NodeDefinition = {
  type: 'transfer_call',
  needs: ['telephony'],
  unsupported: { handle: 'failed', outputs: { transfer_failure_reason: 'channel_unsupported' } },
  run: async (ctx, config, signal) => {
    const destination = normalizeDestination(ctx.render(optString(config, 'destination') ?? ''));
    if (!destination) {
      return { handle: 'failed', outputs: { transfer_failure_reason: 'invalid_destination' } };
    }
    const outcome = await ctx.channel.transfer(destination, { mode: 'blind', signal });
    if (outcome.status === 'success') {
      return { handle: 'success', finish: { status: 'transferred', destination, mode: 'blind' } };
    }
    return { handle: 'failed', outputs: { transfer_failure_reason: outcome.reason ?? 'failed' } };
  },
};
