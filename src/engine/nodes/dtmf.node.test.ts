import { describe, expect, it, vi } from 'vitest';
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
    // The keys as pressed, the terminator too: the transcript shows them.
    expect(h.of('dtmf')).toEqual([expect.objectContaining({ digits: '12', keys: '12#' })]);
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

describe('dtmf on a line where the user speaks', () => {
  /** A text channel standing in for a voice line: text turns are what the recogniser heard. */
  const voiceHarness = () => {
    const h = nodeHarness();
    h.channel.capabilities.speech = true;
    return h;
  };

  it('takes a spoken number as the keys (num_digits cuts it)', async () => {
    const h = voiceHarness();
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushText('four five six seven eight');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '4567' } });
    expect(h.of('message')).toMatchObject([
      { role: 'assistant', content: 'Enter your PIN' },
      { role: 'user', content: 'four five six seven eight' },
    ]);
    expect(h.of('dtmf')[0]).not.toHaveProperty('keys');
  });

  it('waits for the rest of a short spoken number, spoken or keyed', async () => {
    const h = voiceHarness();
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushText('one two');
    await settle();
    h.channel.pushDtmf('3');
    await settle();
    h.channel.pushText('four');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '1234' } });
    // Only the key is a keypress; the spoken digits are in the transcript as said.
    expect(h.of('dtmf')).toEqual([expect.objectContaining({ digits: '1234', keys: '3' })]);
  });

  it('ends at a spoken number when num_digits is unset', async () => {
    const h = voiceHarness();
    const run = dtmfNode.run(h.ctx, { save_to_variable: 'choice' }, h.signal);
    await settle();
    h.channel.pushText('nine one one');
    expect(await run).toEqual({ handle: 'success', outputs: { choice: '911' } });
  });

  it('saves a spoken answer without digits as said, without polite words', async () => {
    for (const [said, saved] of [
      ['yes', 'yes'],
      ['Yes, please.', 'yes'],
      ['i want to billing', 'billing'],
    ]) {
      const h = voiceHarness();
      const run = dtmfNode.run(h.ctx, { ...base, num_digits: 1, save_to_variable: 'choice' }, h.signal);
      await settle();
      h.channel.pushText(said!);
      expect(await run).toEqual({ handle: 'success', outputs: { choice: saved } });
    }
  });

  it('asks the recogniser for digits', async () => {
    const h = voiceHarness();
    const listen = vi.spyOn(h.channel, 'listen');
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushDtmf('1234');
    await run;
    expect(listen.mock.calls[0]![0].hints).toEqual({ digits: true, phrases: [] });
  });

  it('a key still wins, and the timeout needs silence on both', async () => {
    const h = voiceHarness();
    const run = dtmfNode.run(h.ctx, { ...base, num_digits: 1 }, h.signal);
    await settle();
    h.channel.pushDtmf('7');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '7' } });

    const h2 = voiceHarness();
    const timedOut = dtmfNode.run(h2.ctx, base, h2.signal);
    await settle();
    h2.clock.advance(5000);
    expect(await timedOut).toEqual({ handle: 'timeout', outputs: { pin: '' } });
  });

  it('does not listen with speech: false, nor on text lines', async () => {
    for (const [h, config] of [
      [voiceHarness(), { ...base, speech: false }],
      [nodeHarness(), base],
    ] as const) {
      const listen = vi.spyOn(h.channel, 'listen');
      const run = dtmfNode.run(h.ctx, config, h.signal);
      await settle();
      h.channel.pushText('one two three four');
      h.channel.pushDtmf('5678');
      expect(await run).toEqual({ handle: 'success', outputs: { pin: '5678' } });
      expect(listen).not.toHaveBeenCalled();
    }
  });

  it('a recogniser that fails leaves the keypad working', async () => {
    const h = voiceHarness();
    vi.spyOn(h.channel, 'listen').mockRejectedValue(new Error('stt down'));
    const run = dtmfNode.run(h.ctx, base, h.signal);
    await settle();
    h.channel.pushDtmf('4321');
    expect(await run).toEqual({ handle: 'success', outputs: { pin: '4321' } });
  });
});
