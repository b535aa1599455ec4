import { describe, expect, it } from 'vitest';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { transferCallNode } from './transfer-call.node.js';

describe('transfer_call', () => {
  it('blind-transfers and finishes as transferred', async () => {
    const h = nodeHarness();
    const out = await transferCallNode.run(h.ctx, { destination: 'sip:desk@example.com' }, h.signal);
    expect(out.finish).toEqual({ status: 'transferred', destination: 'sip:desk@example.com', mode: 'blind' });
  });

  it('leaves by failed when the REFER is refused', async () => {
    const h = nodeHarness({ channel: { simulated: { transfer: 'failed' } } });
    const out = await transferCallNode.run(h.ctx, { destination: 'sip:desk@example.com' }, h.signal);
    expect(out.handle).toBe('failed');
  });
});
