import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { endNode } from './end.node.js';

describe('end', () => {
  it('finishes as completed and leaves the line up', async () => {
    const h = nodeHarness();
    expect(await endNode.run(h.ctx, {}, h.signal)).toMatchObject({ finish: { status: 'completed' } });
    expect(h.channel.isHungUp).toBe(false);
  });
});
