import { describe, expect, it } from 'vitest';
import type { TextChannelOutput } from '../../channels/text-channel.js';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { transferToHumanNode } from './transfer-to-human.node.js';

describe('transfer_to_human', () => {
  it('warm-transfers with the announcement and finishes as transferred', async () => {
    const h = nodeHarness({ variables: { name: 'Ada' } });
    const outs: TextChannelOutput[] = [];
    h.channel.onOutput((o) => outs.push(o));
    const out = await transferToHumanNode.run(
      h.ctx,
      { destination: 'tel:+15551234567', announcement: 'Caller {{name}}' },
      h.signal,
    );
    expect(out.finish).toEqual({ status: 'transferred', destination: 'tel:+15551234567', mode: 'warm' });
    expect(outs).toMatchObject([{ type: 'transfer', mode: 'warm', announcement: 'Caller Ada' }]);
  });

  it('leaves by failed when the human does not answer', async () => {
    const h = nodeHarness({ channel: { simulated: { transfer: 'failed' } } });
    const out = await transferToHumanNode.run(h.ctx, { destination: 'tel:+15551234567' }, h.signal);
    expect(out).toMatchObject({
      handle: 'failed',
      outputs: { transfer_failure_reason: 'simulated_failure' },
    });
    expect(out.finish).toBeUndefined();
  });

  it('leaves by failed on a destination that is not tel: or sip:', async () => {
    const h = nodeHarness();
    const out = await transferToHumanNode.run(h.ctx, { destination: 'http://x' }, h.signal);
    expect(out).toMatchObject({
      handle: 'failed',
      outputs: { transfer_failure_reason: 'invalid_destination' },
    });
  });
});
