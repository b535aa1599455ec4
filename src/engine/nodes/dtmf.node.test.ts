import { describe, expect, it } from 'vitest';
import { nodeHarness, settle } from '../../../test/support/engine-harness.js';
import { dtmfNode } from './dtmf.node.js';

const base = { prompt: 'Enter your PIN', num_digits: 4, timeout_seconds: 5, save_to_variable: 'pin' };

describe('dtmf', () => {
  it('succeeds at num_digits, leaving further digits buffered', async () => {
    const h = nodeHarness();
    h.channel.pushDtmf('123456');
    expect(await dtmfNode.run(h.ctx, base, h.signal)).toEqual({
      handle: 'success',
      outputs: { pin: '1234' },
    });
    expect(await h.channel.nextDigit({ signal: h.signal })).toBe('5');
  });

  it('ends at the terminator, which is not saved', async () => {
    const h = nodeHarness();
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushDtmf('12#');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '12' } });
  });

  it('takes the key names pound and star for # and *', async () => {
    for (const [name, key] of [
      ['pound', '#'],
      ['star', '*'],
    ] as const) {
      const h = nodeHarness();
      const run = dtmfNode.run(h.ctx, { ...base, terminator: name }, h.signal);
      await settle();
      h.channel.pushDtmf(`4${key === '#' ? '*' : '#'}5${key}`);
      expect(await run).toEqual({ handle: 'success', outputs: { pin: `4${key === '#' ? '*' : '#'}5` } });
    }
  });

  it('times out after timeout_seconds, saving the digits so far', async () => {
    const h = nodeHarness();
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushDtmf('9');
    await settle();
    h.clock.advance(4999);
    await settle();
    h.clock.advance(1);
    expect(await run).toEqual({ handle: 'timeout', outputs: { pin: '9' } });
  });

  it('restarts the timeout after every key', async () => {
    const h = nodeHarness();
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.clock.advance(4000);
    h.channel.pushDtmf('1');
    await settle();
    h.clock.advance(4000);
    h.channel.pushDtmf('2');
    await settle();
    h.clock.advance(4999);
    await settle();
    h.channel.pushDtmf('34');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '1234' } });
  });

  it('counts digits pressed during the prompt', async () => {
    const h = nodeHarness({ channel: { playbackMsPerChar: 50 } });
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushDtmf('12');
    await settle();
    h.channel.pushDtmf('34');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '1234' } });
    expect(h.clock.monotonic()).toBe(0);
  });

  it('times out at once on a silent simulation', async () => {
    const h = nodeHarness({ channel: { silenceWhenIdle: true } });
    expect(await dtmfNode.run(h.ctx, base, h.signal)).toEqual({ handle: 'timeout', outputs: { pin: '' } });
  });

  it('emits a dtmf event and rejects on abort', async () => {
    const h = nodeHarness();
    h.channel.pushDtmf('1234');
    await dtmfNode.run(h.ctx, base, h.signal);
    expect(h.of('dtmf')).toMatchObject([{ digits: '1234' }]);
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.abort(new Error('gone'));
    await expect(run).rejects.toThrow('gone');
  });
});
