import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { hangupNode } from './hangup.node.js';

describe('hangup', () => {
  it('hangs up the channel and finishes as completed', async () => {
    const h = nodeHarness();
    expect(await hangupNode.run(h.ctx, {}, h.signal)).toMatchObject({ finish: { status: 'completed' } });
    expect(h.channel.isHungUp).toBe(true);
  });
});
