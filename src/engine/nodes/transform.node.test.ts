import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { transformNode } from './transform.node.js';

describe('transform', () => {
  it('applies the operation to the rendered input and saves it', async () => {
    const h = nodeHarness({ variables: { said: 'four one one, double five' } });
    const out = await transformNode.run(
      h.ctx,
      { operation: 'extract_digits', input: '{{said}}', save_to_variable: 'digits' },
      h.signal,
    );
    expect(out).toEqual({ handle: 'default', outputs: { digits: '41155' } });
  });

  it('throws on an unknown operation (a node error)', async () => {
    const h = nodeHarness();
    await expect(
      transformNode.run(h.ctx, { operation: 'rot13', input: 'x', save_to_variable: 'y' }, h.signal),
    ).rejects.toThrow(/rot13/);
  });
});
