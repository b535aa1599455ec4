import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { startNode } from './start.node.js';

describe('start', () => {
  it('leaves by default', async () => {
    const h = nodeHarness();
    expect(await startNode.run(h.ctx, {}, h.signal)).toEqual({ handle: 'default' });
  });
});
