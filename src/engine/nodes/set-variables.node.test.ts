import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { setVariablesNode } from './set-variables.node.js';

describe('set_variables', () => {
  it('renders every template against the variables as they were on entry', async () => {
    const h = nodeHarness({ variables: { first: 'Ada', last: 'Lovelace' } });
    const out = await setVariablesNode.run(
      h.ctx,
      { variables: { full: '{{first}} {{last}}', first: 'Grace', n: 3 } },
      h.signal,
    );
    expect(out).toEqual({ handle: 'default', outputs: { full: 'Ada Lovelace', first: 'Grace', n: 3 } });
  });
});
