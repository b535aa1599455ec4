import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { conditionNode } from './condition.node.js';

describe('condition', () => {
  const config = {
    branches: [
      { handle: 'vip', expression: "tier == 'gold'" },
      { handle: 'retry', expression: 'attempts < 3' },
    ],
  };

  it('leaves by the first branch that holds', async () => {
    const h = nodeHarness({ variables: { tier: 'gold', attempts: 1 } });
    expect(await conditionNode.run(h.ctx, config, h.signal)).toEqual({ handle: 'vip' });
    h.variables.set('tier', 'silver');
    expect(await conditionNode.run(h.ctx, config, h.signal)).toEqual({ handle: 'retry' });
  });

  it('leaves by default when none holds', async () => {
    const h = nodeHarness({ variables: { tier: 'silver', attempts: 5 } });
    expect(await conditionNode.run(h.ctx, config, h.signal)).toEqual({ handle: 'default' });
  });
});
