import { describe, expect, it } from 'vitest';
import type { TextChannelOutput } from '../../channels/text-channel.js';
import { nodeHarness } from '../../../test/support/engine-harness.js';
import { dialNode } from './dial.node.js';

describe('dial', () => {
  for (const status of ['answered', 'no_answer', 'busy', 'failed'] as const) {
    it(`leaves by ${status} when the simulated outcome is ${status}`, async () => {
      const h = nodeHarness({ channel: { simulated: { dial: status } } });
      const out = await dialNode.run(h.ctx, { to: '+15551234567' }, h.signal);
      expect(out.handle).toBe(status);
    });
  }

  it('renders the destination and fails on a malformed one without dialing', async () => {
    const h = nodeHarness({ variables: { who: 'sip:bob@example.com', bad: 'bob' } });
    const outs: TextChannelOutput[] = [];
    h.channel.onOutput((o) => outs.push(o));
    expect((await dialNode.run(h.ctx, { to: '{{who}}' }, h.signal)).handle).toBe('answered');
    expect((await dialNode.run(h.ctx, { to: '{{bad}}' }, h.signal)).handle).toBe('failed');
    expect(outs).toMatchObject([{ type: 'dial', destination: 'sip:bob@example.com' }]);
  });

  it("reports the dialled party's keys as dial.dtmf events, not as the workflow's input", async () => {
    const h = nodeHarness();
    h.channel.dial = async (_destination, options) => {
      options.onPartyDigit?.('7', 'leg-9');
      options.onPartyDigit?.('#', 'leg-9');
      return { status: 'answered', callId: 'leg-9' };
    };
    const out = await dialNode.run(h.ctx, { to: '+15551234567' }, h.signal);
    expect(out.handle).toBe('answered');
    expect(h.of('dial.dtmf')).toMatchObject([
      { type: 'dial.dtmf', digits: '7', call_id: 'leg-9', node_id: 'n' },
      { type: 'dial.dtmf', digits: '#', call_id: 'leg-9', node_id: 'n' },
    ]);
    expect(h.of('dtmf')).toEqual([]);
  });
});
